/** A small seeded PRNG (mulberry32) for randomized tests: the same seed gives the same run. */
export function prng(seed: number) {
	let a = seed >>> 0;
	const next = () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
	return {
		next,
		/** A whole number from `min` to `max`, both included. */
		int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)),
		chance: (p: number) => next() < p,
		pick: <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)],
	};
}

export type Prng = ReturnType<typeof prng>;
