/**
 * An event listener that does asynchronous work. The DOM ignores a listener's result, so a
 * promise it returned would fail unseen; this one ends every failure nobody expected in the
 * console (where the browser tests look), and the work handles what it expects itself.
 */
export function asyncListener<E extends Event>(work: (event: E) => Promise<unknown>): (event: E) => void {
  return (event) => {
    work(event).catch((error: unknown) => console.error("unexpected failure in a page's event handler", error));
  };
}
