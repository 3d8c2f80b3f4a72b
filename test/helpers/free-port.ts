import { createServer, type AddressInfo } from 'node:net';

/**
 * A loopback port nothing listens on right now: one the kernel just gave a probe, closed again.
 * For a child server that does not say which port it got, or for a receiver that is down.
 */
export async function freePort(): Promise<number> {
  const probe = createServer();
  probe.unref();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}
