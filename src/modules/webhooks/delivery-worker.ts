/**
 * The delivery thread's entry (a worker_threads worker, started by DeliveryThread): it builds, signs
 * and sends the attempts the dispatcher hands it, through its own WebhookSender and outbound policy,
 * and posts each outcome back under the attempt's id. It never touches the database: the API's
 * thread keeps SQLite, and this one the network (keep-alive connections, TLS, the signing).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { sendJob, type DeliveryJob } from './delivery-job.js';
import { OutboundPolicy } from './outbound-policy.js';
import { WebhookSender } from './webhook-sender.js';
import type { DeliveryThreadMessage, DeliveryThreadOptions, DeliveryThreadReply } from './delivery-thread.js';

const port = parentPort!;
const options = workerData as DeliveryThreadOptions;
const sender = new WebhookSender(new OutboundPolicy(options.allowHosts, { allowPrivate: options.allowPrivate }));

/** Outcomes go back in one message per event-loop turn. */
let outbox: DeliveryThreadReply['outcomes'] = [];
let flushQueued = false;
const flush = () => {
  flushQueued = false;
  const outcomes = outbox;
  outbox = [];
  port.postMessage({ outcomes } satisfies DeliveryThreadReply);
};

function run(job: DeliveryJob): void {
  void sendJob(sender, job).then((outcome) => {
    outbox.push({ id: job.id, outcome });
    if (!flushQueued) {
      flushQueued = true;
      setImmediate(flush);
    }
  });
}

port.on('message', (message: DeliveryThreadMessage) => {
  if (message.type === 'send') for (const job of message.jobs) run(job);
  else if (message.type === 'abort') sender.abortAll();
  else {
    sender.abortAll();
    sender.close();
    port.close();
  }
});
