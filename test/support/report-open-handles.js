'use strict';
/**
 * Preloaded into every Jest run of `npm test` (test/run-all.js, NODE_OPTIONS): when a run stays alive after writing
 * its report (an open handle), run-all sends SIGUSR2 before stopping it, and this prints what still holds the process:
 * each active handle's type and, for a socket, where it is connected, for a timer, its delay. A lingering run then
 * names its handle in the log instead of being stopped without a word.
 */
process.on('SIGUSR2', () => {
  const lines = [];
  for (const handle of process._getActiveHandles()) {
    const type = handle?.constructor?.name ?? typeof handle;
    if (type === 'Socket' || type === 'TLSSocket') {
      if (handle === process.stdout || handle === process.stderr || handle === process.stdin) continue;
      lines.push(
        `${type} ${handle.localAddress ?? ''}:${handle.localPort ?? ''} -> ${handle.remoteAddress ?? '?'}:${handle.remotePort ?? '?'}${handle.destroyed ? ' (destroyed)' : ''}`,
      );
    } else if (type === 'Timeout') {
      lines.push(
        `Timeout ${handle._idleTimeout} ms${handle.hasRef?.() === false ? ' (unref)' : ''}: ${String(handle._onTimeout?.name || handle._onTimeout).slice(0, 120)}`,
      );
    } else if (type === 'Server') {
      const address = handle.address?.();
      lines.push(`Server ${address ? `${address.address}:${address.port}` : ''}`);
    } else lines.push(type);
  }
  // timers and other resources are not handles in Node 20: counted by kind
  const counts = new Map();
  for (const kind of process.getActiveResourcesInfo()) counts.set(kind, (counts.get(kind) ?? 0) + 1);
  const resources = [...counts].map(([kind, n]) => `${kind} × ${n}`).join(', ');
  process.stderr.write(
    `\n[open handles] pid ${process.pid}, ${lines.length} active handle(s):\n${lines.map((line) => `  ${line}`).join('\n')}\n  resources: ${resources}\n`,
  );
});
