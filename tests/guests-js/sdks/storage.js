// Object storage through the AWS SDK for JavaScript v3, against moto's S3-compatible server
// (`--s3`): a bucket made, an object put, got back and listed.
import { S3Client, CreateBucketCommand, PutObjectCommand, GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';

/** 256 KiB and 3 bytes, each 4-byte word its own offset: a reordered or cut body shows. */
function object() {
  const bytes = Buffer.alloc(256 * 1024 + 3);
  for (let i = 0; i + 4 <= bytes.length; i += 4) bytes.writeUInt32LE(i, i);
  return bytes;
}

export async function aws_s3({ s3 }) {
  const client = new S3Client({
    endpoint: s3,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'bench', secretAccessKey: 'bench' },
  });
  const Bucket = `sdks-${Date.now()}`;
  const body = object();
  await client.send(new CreateBucketCommand({ Bucket }));
  await client.send(new PutObjectCommand({ Bucket, Key: 'a/b.bin', Body: body, ContentType: 'application/octet-stream' }));
  const got = await client.send(new GetObjectCommand({ Bucket, Key: 'a/b.bin' }));
  const bytes = await got.Body.transformToByteArray();
  const listed = await client.send(new ListObjectsV2Command({ Bucket }));
  return {
    same: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).equals(body),
    length: bytes.length,
    contentType: got.ContentType,
    keys: listed.Contents.map((item) => item.Key),
  };
}
