/**
 * The plan's cost block (pure): what one million characters and one audio-hour cost on this
 * instance type at this policy. Per instance, at a per-instance request rate x:
 *   characters/s = x * characters per request,   audio-s/s = x * audio seconds per request,
 *   $ per 1M characters = hourly price / (characters/s * 3600) * 1e6,
 *   $ per audio-hour    = hourly price / (audio-s/s).
 * Rates are the plan's: X_target (the throughput at the scale-out target) and lambda_safe (the
 * surge-safe rate the chosen policy holds each instance at). Characters and audio per request are
 * the qmax's audio summaries (measured), or, when it recorded none, the characters of the prompts
 * it sent (computed; no audio-hour figures then).
 */
import type {
  CostPoint,
  Finding,
  InstancePrice,
  PlanCost,
  QmaxArtifact,
  ReferencePrice,
} from '../model/index.js';

/** Mean characters and audio seconds per request over the qmax's rungs that recorded audio. */
export interface AudioPerRequest {
  characters: number;
  audioS: number;
}

/** The stream-weighted means of the qmax's audio summaries; null when no rung recorded audio. */
export function audioPerRequest(qmax: Pick<QmaxArtifact, 'steps'>): AudioPerRequest | null {
  let streams = 0;
  let characters = 0;
  let audioS = 0;
  for (const step of qmax.steps) {
    const a = step.audio;
    if (!a || a.streams <= 0) continue;
    streams += a.streams;
    characters += a.characters_mean * a.streams;
    audioS += a.audio_s_mean * a.streams;
  }
  return streams > 0 ? { characters: characters / streams, audioS: audioS / streams } : null;
}

/** Mean characters (Unicode code points) of the prompts' texts; null for none. */
export function meanCharacters(texts: readonly string[]): number | null {
  if (texts.length === 0) return null;
  return texts.reduce((sum, t) => sum + [...t].length, 0) / texts.length;
}

const round = (v: number, digits: number): number => Number(v.toFixed(digits));

export interface PlanCostInput {
  price: InstancePrice | null;
  /** Why the price is what it is, or why there is none (the resolution's note). */
  priceNote: string | null;
  qmax: Pick<QmaxArtifact, 'steps'>;
  /** Characters per request of the prompts the qmax sent, when readable (used only without audio). */
  promptCharacters: number | null;
  xTargetRps: number | null;
  lambdaSafeRps: number | null;
  references: ReadonlyArray<{ name: string; usd_per_million_characters: number }>;
}

/** One cost point at `rateRps` per instance; null when that rate carries no characters. */
export function costPoint(
  at: CostPoint['at'],
  rateRps: number,
  hourlyUsd: number,
  characters: number,
  audioS: number | null,
): CostPoint | null {
  const charactersPerS = rateRps * characters;
  if (!(charactersPerS > 0)) return null;
  const audioPerS = audioS === null ? null : rateRps * audioS;
  return {
    at,
    rate_rps: round(rateRps, 6),
    characters_per_s: round(charactersPerS, 6),
    audio_s_per_s: audioPerS === null ? null : round(audioPerS, 6),
    usd_per_million_characters: round((hourlyUsd / (charactersPerS * 3600)) * 1e6, 6),
    usd_per_audio_hour: audioPerS !== null && audioPerS > 0 ? round(hourlyUsd / audioPerS, 6) : null,
    origin: 'computed',
  };
}

/** The plan's cost block. */
export function planCost(input: PlanCostInput): PlanCost {
  const audio = audioPerRequest(input.qmax);
  const characters = audio ? audio.characters : input.promptCharacters;
  const notes: string[] = input.priceNote ? [input.priceNote] : [];
  if (!audio) {
    notes.push(
      characters === null
        ? 'the qmax recorded no audio and no readable prompts: no characters per request, so no cost figures (name the prompts it sent with --prompts)'
        : 'the qmax recorded no audio: characters per request from its prompts (computed), no audio-hour figures',
    );
  }
  const points: CostPoint[] = [];
  if (input.price && characters !== null) {
    const rates: [CostPoint['at'], number | null][] = [
      ['target', input.xTargetRps],
      ['surge_safe', input.lambdaSafeRps],
    ];
    for (const [at, rate] of rates) {
      if (rate === null || !(rate > 0)) continue;
      const point = costPoint(at, rate, input.price.hourly_usd, characters, audio ? audio.audioS : null);
      if (point) points.push(point);
    }
    if (points.length === 0) notes.push('no positive per-instance rate at the target: no cost figures');
  }
  const references: ReferencePrice[] = input.references.map((r) => ({
    name: r.name,
    usd_per_million_characters: r.usd_per_million_characters,
    origin: 'stated',
  }));
  return {
    price: input.price,
    characters_per_request: characters === null ? 0 : round(characters, 3),
    audio_s_per_request: audio ? round(audio.audioS, 6) : null,
    audio_origin: audio ? 'measured' : null,
    characters_from: audio ? 'qmax' : characters === null ? null : 'prompts',
    points,
    references,
    note: notes.length > 0 ? notes.join('; ') : null,
  };
}

/** Where a price came from, in words: `Price List API, 2026-12-01`, `fallback table of ...`, `stated in config`. */
export function priceProvenance(price: InstancePrice): string {
  switch (price.source) {
    case 'price-list-api':
      return `Price List API${price.as_of ? `, ${price.as_of}` : ''}`;
    case 'fallback-table':
      return `fallback table of ${price.as_of ?? 'unknown date'}`;
    case 'stated':
      return 'stated in config';
  }
}

/**
 * The fleet_cost finding on the resolved price: the fleet's hourly cost at min and max instances
 * with the price's provenance; suppressed (with why) when no price is known.
 */
export function fleetCostFinding(
  price: InstancePrice | null,
  priceNote: string | null,
  minInstances: number,
  maxInstances: number,
): Finding {
  if (price === null) {
    return {
      name: 'fleet_cost',
      verdict: 'suppressed',
      detail: `no instance price known${priceNote ? ` (${priceNote})` : ''}`,
      fix: 'set instance_hourly_usd for the model in scalegate.config.json, or let the plan ask the Price List API (--price-source api)',
    };
  }
  const usd = price.hourly_usd;
  return {
    name: 'fleet_cost',
    verdict: 'ok',
    detail: `$${(minInstances * usd).toFixed(2)}/h at min (${minInstances}), $${(maxInstances * usd).toFixed(2)}/h at max (${maxInstances}) at $${usd.toFixed(3)}/instance-hour (${priceProvenance(price)})`,
    fix: null,
  };
}
