/**
 * The few Reflect metadata functions tsyringe (a dependency of @peculiar/x509) checks for at
 * load, for tests only: the package `reflect-metadata` is not installed. Imported before x509.
 */
const store = new WeakMap<object, Map<unknown, unknown>>();
const slot = (target: object): Map<unknown, unknown> => {
  let m = store.get(target);
  if (!m) {
    m = new Map();
    store.set(target, m);
  }
  return m;
};
const R = Reflect as unknown as Record<string, unknown>;
if (typeof R.getMetadata !== 'function') {
  R.defineMetadata = (key: unknown, value: unknown, target: object) => slot(target).set(key, value);
  R.getOwnMetadata = (key: unknown, target: object) => store.get(target)?.get(key);
  R.getMetadata = (key: unknown, target: object): unknown => {
    for (let t: object | null = target; t; t = Object.getPrototypeOf(t)) {
      const v = store.get(t)?.get(key);
      if (v !== undefined) return v;
    }
    return undefined;
  };
  R.hasMetadata = (key: unknown, target: object) =>
    (R.getMetadata as (k: unknown, t: object) => unknown)(key, target) !== undefined;
  R.metadata = (key: unknown, value: unknown) => (target: object) => slot(target).set(key, value);
}

export {};
