/** A binary min-heap of (time, instance) pairs in typed arrays: the completion events of the simulation. */
export class CompletionHeap {
  private times = new Float64Array(1024);
  private owners = new Int32Array(1024);
  size = 0;

  push(time: number, owner: number): void {
    if (this.size === this.times.length) {
      const t = new Float64Array(this.size * 2);
      t.set(this.times);
      this.times = t;
      const o = new Int32Array(this.size * 2);
      o.set(this.owners);
      this.owners = o;
    }
    let i = this.size++;
    const times = this.times;
    const owners = this.owners;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if ((times[parent] as number) <= time) break;
      times[i] = times[parent] as number;
      owners[i] = owners[parent] as number;
      i = parent;
    }
    times[i] = time;
    owners[i] = owner;
  }

  /** The earliest time (Infinity when empty). */
  peekTime(): number {
    return this.size === 0 ? Number.POSITIVE_INFINITY : (this.times[0] as number);
  }

  /** Removes the earliest entry and returns its owner. */
  pop(): number {
    const times = this.times;
    const owners = this.owners;
    const top = owners[0] as number;
    const n = --this.size;
    if (n === 0) return top;
    const time = times[n] as number;
    const owner = owners[n] as number;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && (times[r] as number) < (times[l] as number) ? r : l;
      if ((times[c] as number) >= time) break;
      times[i] = times[c] as number;
      owners[i] = owners[c] as number;
      i = c;
    }
    times[i] = time;
    owners[i] = owner;
    return top;
  }
}
