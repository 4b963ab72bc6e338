/**
 * Least-outstanding-requests routing over the in-service instances in O(1) per request: instances
 * are kept in buckets by their in-flight count, so the least loaded bucket is the first non-empty
 * one (counts are bounded by the admission limit); ties go round robin within it.
 */
export class LeastOutstanding {
  /** bucket[v]: instance indices with v in flight. */
  private readonly buckets: number[][];
  /** Per instance index: its place in its bucket, and its bucket (-1: not routed). */
  private readonly position: number[] = [];
  private readonly count: number[] = [];
  private rr = 0;
  size = 0;

  constructor(maxInFlight: number) {
    this.buckets = Array.from({ length: maxInFlight + 2 }, () => []);
  }

  private put(index: number, v: number): void {
    const bucket = this.buckets[v] as number[];
    this.position[index] = bucket.length;
    bucket.push(index);
    this.count[index] = v;
  }

  private take(index: number): number {
    const v = this.count[index] as number;
    const bucket = this.buckets[v] as number[];
    const at = this.position[index] as number;
    const last = bucket.pop() as number;
    if (last !== index) {
      bucket[at] = last;
      this.position[last] = at;
    }
    return v;
  }

  /** An instance starts taking traffic with `inFlight` requests. */
  add(index: number, inFlight: number): void {
    this.put(index, Math.min(inFlight, this.buckets.length - 1));
    this.size += 1;
  }

  /** It leaves the routing (scale-in). */
  remove(index: number): void {
    this.take(index);
    this.count[index] = -1;
    this.size -= 1;
  }

  has(index: number): boolean {
    return (this.count[index] ?? -1) >= 0;
  }

  /** Its in-flight count changed by +1 or -1 (only for routed instances). */
  shift(index: number, delta: 1 | -1): void {
    const v = this.take(index);
    this.put(index, Math.max(0, Math.min(this.buckets.length - 1, v + delta)));
  }

  /** The least loaded instance (undefined when none is routed). */
  pick(): number | undefined {
    for (const bucket of this.buckets) {
      if (bucket.length === 0) continue;
      const chosen = bucket[this.rr % bucket.length] as number;
      this.rr = (this.rr + 1) % 1_000_000;
      return chosen;
    }
    return undefined;
  }
}
