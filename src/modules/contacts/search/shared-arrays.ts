/**
 * Typed arrays in SharedArrayBuffer memory. A snapshot's arrays are built in the service's
 * thread and read as they are by the walk threads (walkers.ts): posting such an array to a
 * thread shares its memory, so a million contacts' index (some 230 MiB) is held once, however
 * many threads walk it.
 */

type Numbers = Int32Array | Uint32Array | Uint16Array | Uint8Array | Float64Array;

interface NumbersType<A extends Numbers> {
  new (buffer: SharedArrayBuffer, byteOffset: number, length: number): A;
  readonly BYTES_PER_ELEMENT: number;
}

/** A shared array of `length` zeros. */
export function sharedArray<A extends Numbers>(Type: NumbersType<A>, length: number): A {
  return new Type(new SharedArrayBuffer(length * Type.BYTES_PER_ELEMENT), 0, length);
}

/** A shared array of the type and length of `array`, of zeros. */
export function sharedLike<A extends Numbers>(array: A): A {
  return sharedArray(array.constructor as unknown as NumbersType<A>, array.length);
}

/** A shared copy of `array`. */
export function sharedCopy<A extends Numbers>(array: A): A {
  const copy = sharedLike(array);
  copy.set(array);
  return copy;
}
