/**
 * Generic pieces of a group-sequential decision on dependent data: the normal CDF and quantile,
 * the Lan-DeMets O'Brien-Fleming-type spending function, and the von Neumann ratio of successive
 * differences (a test of serial dependence). Pure.
 */

/** Standard normal CDF (Abramowitz-Stegun 7.1.26 on erf, |error| < 1.5e-7). */
export function normalCdf(z: number): number {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * x);
  const erf =
    1 -
    ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) *
      t *
      Math.exp(-x * x);
  return z >= 0 ? 0.5 * (1 + erf) : 0.5 * (1 - erf);
}

/** Standard normal quantile (bisection on normalCdf). */
export function normalQuantile(p: number): number {
  let lo = -40;
  let hi = 40;
  for (let i = 0; i < 100; i++) {
    const mid = (lo + hi) / 2;
    if (normalCdf(mid) < p) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/** Lan-DeMets O'Brien-Fleming-type spending: alpha spent by information fraction t. */
export function obfSpent(alpha: number, t: number): number {
  if (t <= 0) return 0;
  if (t >= 1) return alpha;
  return 2 * (1 - normalCdf(normalQuantile(1 - alpha / 2) / Math.sqrt(t)));
}

/** von Neumann ratio: sum of squared successive differences / sum of squared deviations. */
export function vonNeumannRatio(xs: readonly number[]): number | null {
  if (xs.length < 3) return null;
  const mean = xs.reduce((a, v) => a + v, 0) / xs.length;
  let num = 0;
  let den = 0;
  for (let i = 0; i < xs.length; i++) {
    den += ((xs[i] as number) - mean) ** 2;
    if (i > 0) num += ((xs[i] as number) - (xs[i - 1] as number)) ** 2;
  }
  return den > 0 ? num / den : null;
}

/** The 5 % point of the von Neumann ratio under independence (normal approximation). */
export const vonNeumannCritical = (b: number): number => 2 - 1.645 * 2 * Math.sqrt((b - 2) / (b * b - 1));

/**
 * The integrated autocorrelation time of a series, in steps (Geyer's initial positive sequence):
 * 1 for independent values. A series that barely moves (sd under 0.02) gives 1.
 */
export function integratedAutocorrelationTime(xs: readonly number[]): number {
  const n = xs.length;
  if (n < 8) return 1;
  const mean = xs.reduce((a, v) => a + v, 0) / n;
  let c0 = 0;
  for (const x of xs) c0 += (x - mean) ** 2;
  // A series that barely moves (sd of the log medians under 2 %) shows no state to persist.
  if (c0 <= 0 || Math.sqrt(c0 / n) < 0.02) return 1;
  const rho = (k: number) => {
    let c = 0;
    for (let i = k; i < n; i++) c += ((xs[i] as number) - mean) * ((xs[i - k] as number) - mean);
    return c / c0;
  };
  let tau = 1;
  for (let k = 1; k + 1 < n / 2; k += 2) {
    const pair = rho(k) + rho(k + 1);
    if (pair <= 0) break;
    tau += 2 * pair;
  }
  return tau;
}
