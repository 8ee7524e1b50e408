// AI providers' SDKs against the test's fake API: one completion each.
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import Groq from 'groq-sdk';
import { Mistral } from '@mistralai/mistralai';

const messages = [{ role: 'user', content: 'Say hi' }];

export async function openai({ api }) {
  const client = new OpenAI({ apiKey: 'sk-test', baseURL: `${api}/openai/v1` });
  const completion = await client.chat.completions.create({ model: 'gpt-4o-mini', messages });
  return { text: completion.choices[0].message.content };
}

export async function anthropic({ api }) {
  const client = new Anthropic({ apiKey: 'sk-ant-test', baseURL: `${api}/anthropic` });
  const message = await client.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 64, messages });
  return { text: message.content[0].text };
}

export async function groq({ api }) {
  const client = new Groq({ apiKey: 'gsk-test', baseURL: `${api}/groq` });
  const completion = await client.chat.completions.create({ model: 'llama-3.3-70b-versatile', messages });
  return { text: completion.choices[0].message.content };
}

export async function mistral({ api }) {
  const client = new Mistral({ apiKey: 'mistral-test', serverURL: `${api}/mistral` });
  const completion = await client.chat.complete({ model: 'mistral-small-latest', messages });
  return { text: completion.choices[0].message.content };
}
