// A storage benchmark as it is written for Node: each task uploads an object of each size
// through the AWS SDK for JavaScript v3 and downloads it again, timing both in steps, and
// checks what came back. `--endpoint` points it at an S3-compatible server (path-style
// addressing), `--sizes` lists the object sizes in MiB.
import { defineBenchmarkConfig, defineTask, TaskError } from '@bench/task';
import { S3Client, CreateBucketCommand, PutObjectCommand, GetObjectCommand } from '@aws-sdk/client-s3';

export const config = defineBenchmarkConfig({
  benchmarkSlug: 'js-s3',
  benchmarkName: 'S3 upload and download',
  participants: [{ name: 'local', requiredEnvVars: [] }],
  iterations: 5,
  allowedHosts: ['http://127.0.0.1:*', 'http://localhost:*'],
  customCliFlags: ['--endpoint', '--sizes'],
});

const MIB = 1024 * 1024;
let client;
let bucket;
const objects = new Map();

/** The object of `mib` MiB every task uploads (made once per instance). */
function object(mib) {
  if (!objects.has(mib)) {
    const bytes = Buffer.alloc(mib * MIB);
    for (let i = 0; i < bytes.length; i += 4096) bytes.writeUInt32LE(i, i);
    objects.set(mib, bytes);
  }
  return objects.get(mib);
}

export const task = defineTask(async (ctx) => {
  const endpoint = ctx.arg('--endpoint') || 'http://127.0.0.1:5000';
  const sizes = (ctx.arg('--sizes') || '1,4,10,16').split(',').map(Number);
  if (!client) {
    client = new S3Client({
      endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: 'bench', secretAccessKey: 'bench' },
    });
    bucket = `bench-${Date.now()}-${Math.floor(Math.random() * 1e6)}`;
    await client.send(new CreateBucketCommand({ Bucket: bucket }));
  }
  for (const mib of sizes) {
    const body = object(mib);
    const Key = `object-${mib}MiB`;
    await ctx.step(`upload-${mib}MiB`, () => client.send(new PutObjectCommand({ Bucket: bucket, Key, Body: body })));
    const downloaded = await ctx.step(`download-${mib}MiB`, async () => {
      const answer = await client.send(new GetObjectCommand({ Bucket: bucket, Key }));
      return answer.Body.transformToByteArray();
    });
    if (!Buffer.from(downloaded.buffer, downloaded.byteOffset, downloaded.byteLength).equals(body)) {
      throw new TaskError(`the ${mib} MiB object came back different`, { code: 'corrupt_object' });
    }
  }
  return { data: { bucket, sizes } };
});
