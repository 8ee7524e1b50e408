// Payments, browser and sandbox providers, blob storage and a code host, against the test's
// fake API: one call each.
import Stripe from 'stripe';
import Browserbase from '@browserbasehq/sdk';
import Runloop from '@runloop/api-client';
import { ContainerClient } from '@azure/storage-blob';
import { Octokit } from '@octokit/rest';
import axios from 'axios';

export async function stripe({ api }) {
  const url = new URL(api);
  const client = new Stripe('sk_test_123', { host: url.hostname, port: Number(url.port), protocol: 'http', maxNetworkRetries: 0 });
  const customer = await client.customers.create({ email: 'ada@example.com', metadata: { plan: 'pro' } });
  return { id: customer.id, email: customer.email };
}

export async function browserbase({ api }) {
  const client = new Browserbase({ apiKey: 'bb-test', baseURL: `${api}/browserbase` });
  const session = await client.sessions.create({ projectId: 'proj-1' });
  return { id: session.id, status: session.status };
}

export async function runloop({ api }) {
  // The SDK opens HTTP/2 sessions itself in Node unless told to use HTTP/1.1 (its `http2` option).
  const client = new Runloop({ bearerToken: 'rl-test', baseURL: `${api}/runloop`, maxRetries: 0, http2: false });
  const devbox = await client.devboxes.create({ name: 'bench' });
  return { id: devbox.id, status: devbox.status };
}

export async function azure_blob({ api }) {
  const container = new ContainerClient(`${api}/azure/account/box`);
  const blob = container.getBlockBlobClient('note.txt');
  await blob.upload('hello azure', 11, { blobHTTPHeaders: { blobContentType: 'text/plain' } });
  const downloaded = await blob.downloadToBuffer();
  return { text: downloaded.toString('utf8') };
}

export async function octokit({ api }) {
  const client = new Octokit({ baseUrl: `${api}/github`, auth: 'ghp_test' });
  const { data } = await client.rest.repos.get({ owner: 'bench', repo: 'bench' });
  return { fullName: data.full_name, stars: data.stargazers_count };
}

export async function axios_client({ api }) {
  const response = await axios.post(`${api}/axios/echo`, { ping: 1 }, { headers: { 'x-client': 'axios' } });
  return { status: response.status, echoed: response.data };
}
