// Type assertions for the files of this folder. `Equal` is exact (not mere assignability), so
// `any` where a type was expected fails, and so does a type that is only wider or narrower.

/** `true` when `A` and `B` are the same type. */
export type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

/** Compiles only for `true`: `expect<Equal<typeof x, string>>()`. */
export function expect<T extends true>(): void {
  void (undefined as unknown as T);
}
