/**
 * A stand-in for the public Sigstore instance, offline: a certificate authority shaped like
 * Fulcio (root + intermediate; leaf certificates carrying the GitHub Actions OIDC claims as Fulcio's
 * extensions 1.3.6.1.4.1.57264.1.*, the workflow URI as SAN, and an embedded SCT from a test CT
 * log), and a test Rekor (a DSSE v0.0.1 entry with its signed entry timestamp and an inclusion
 * proof under a signed checkpoint). Bundles it signs are verified by @sigstore/verify with the
 * production thresholds (one SCT, one transparency-log entry, one timestamp): nothing is lowered.
 *
 * Used by scripts/attestation-fixtures.ts (the committed fixtures) and by tests that sign what
 * they write at run time. Keys live in memory only: nothing private is ever written.
 */
import {
  createHash,
  type KeyObject,
  KeyObject as NodeKeyObject,
  sign as nodeSign,
  webcrypto,
} from 'node:crypto';
import { basename } from 'node:path';
import './reflect-metadata.js';
import * as x509 from '@peculiar/x509';
import { dsse, json, X509Certificate as SigstoreCertificate } from '@sigstore/core';

x509.cryptoProvider.set(webcrypto as never);

const EC = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const SIGNING = { name: 'ECDSA', hash: 'SHA-256' } as const;
const ISSUER = 'https://token.actions.githubusercontent.com';
const REKOR_URL = 'https://rekor.test.scalegate.invalid';
const CTFE_URL = 'https://ctfe.test.scalegate.invalid';
const FULCIO_URL = 'https://fulcio.test.scalegate.invalid';
export const INTOTO_PAYLOAD_TYPE = 'application/vnd.in-toto+json';

interface Keys {
  pair: webcrypto.CryptoKeyPair;
  privateKey: KeyObject;
  spki: Buffer;
}

async function newKeys(): Promise<Keys> {
  const pair = (await webcrypto.subtle.generateKey(EC, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const spki = Buffer.from(await webcrypto.subtle.exportKey('spki', pair.publicKey));
  return { pair, privateKey: NodeKeyObject.from(pair.privateKey), spki };
}

const sha256 = (...data: Uint8Array[]): Buffer => {
  const h = createHash('sha256');
  for (const d of data) h.update(d);
  return h.digest();
};
const ecdsa = (key: KeyObject, data: Uint8Array): Buffer => nodeSign('sha256', data, key);

/** DER of a UTF8String: the value of Fulcio's v2 extensions. */
export function derUtf8(value: string): Buffer {
  const bytes = Buffer.from(value, 'utf8');
  const n = bytes.length;
  const length = n < 0x80 ? [n] : n < 0x100 ? [0x81, n] : [0x82, n >> 8, n & 0xff];
  return Buffer.concat([Buffer.from([0x0c, ...length]), bytes]);
}

/** DER of an OCTET STRING around `inner` (the SCT list extension's value). */
function derOctets(inner: Buffer): Buffer {
  const n = inner.length;
  const length = n < 0x80 ? [n] : n < 0x100 ? [0x81, n] : [0x82, n >> 8, n & 0xff];
  return Buffer.concat([Buffer.from([0x04, ...length]), inner]);
}

/** Who signed: the claims of the GitHub Actions OIDC token Fulcio copies into the certificate. */
export interface SignerClaims {
  /** owner/repo */
  repository: string;
  /** `.github/workflows/calibrate.yml` */
  workflow: string;
  /** `refs/heads/main` */
  ref: string;
  /** The OIDC issuer. @default https://token.actions.githubusercontent.com */
  issuer?: string;
  sha?: string;
}

export const signerUri = (c: SignerClaims): string =>
  `https://github.com/${c.repository}/${c.workflow}@${c.ref}`;

export interface TestCa {
  /** The Sigstore TrustedRoot JSON (what `gh attestation trusted-root` prints one of per line). */
  trustedRoot: Record<string, unknown>;
  /** Signs an in-toto statement over `subjects` as `claims`, returning the bundle JSON (v0.3). */
  attest(
    subjects: Array<{ name: string; digest: { sha256: string } }>,
    claims: SignerClaims,
  ): Promise<Record<string, unknown>>;
  /** Signs a statement given as bytes (to forge: a statement that does not match its signature). */
  signStatement(statement: Buffer, claims: SignerClaims): Promise<Record<string, unknown>>;
}

/** The moment every fixture was "signed": fixed, so bundles never expire (verification uses it, not now). */
export const SIGNED_AT = new Date('2026-01-15T12:00:00Z');

export interface TestCaOptions {
  /** When this CA's certificates start being valid. @default 2025-01-01 */
  validFrom?: Date;
  /** Name in the certificates, so that two CAs are told apart in messages. @default "scalegate test" */
  name?: string;
  /** The signing time of the bundles. @default SIGNED_AT */
  signedAt?: Date;
}

export async function createTestCa(options: TestCaOptions = {}): Promise<TestCa> {
  const name = options.name ?? 'scalegate test';
  const validFrom = options.validFrom ?? new Date('2025-01-01T00:00:00Z');
  const signedAt = options.signedAt ?? SIGNED_AT;
  const validTo = new Date(validFrom.getTime() + 20 * 365 * 86_400_000);
  const [rootKeys, intermediateKeys, rekorKeys, ctKeys] = await Promise.all([
    newKeys(),
    newKeys(),
    newKeys(),
    newKeys(),
  ]);

  const root = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name: `O=${name}, CN=${name} fulcio root`,
    notBefore: validFrom,
    notAfter: validTo,
    keys: rootKeys.pair,
    signingAlgorithm: SIGNING,
    extensions: [
      new x509.BasicConstraintsExtension(true, 1, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(rootKeys.pair.publicKey),
    ],
  });
  const intermediate = await x509.X509CertificateGenerator.create({
    serialNumber: '02',
    subject: `O=${name}, CN=${name} fulcio intermediate`,
    issuer: root.subject,
    notBefore: validFrom,
    notAfter: validTo,
    publicKey: intermediateKeys.pair.publicKey,
    signingKey: rootKeys.pair.privateKey,
    signingAlgorithm: SIGNING,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      new x509.ExtendedKeyUsageExtension(['1.3.6.1.5.5.7.3.3']),
      await x509.SubjectKeyIdentifierExtension.create(intermediateKeys.pair.publicKey),
      await x509.AuthorityKeyIdentifierExtension.create(rootKeys.pair.publicKey),
    ],
  });

  const rekorLogId = sha256(rekorKeys.spki);
  const ctLogId = sha256(ctKeys.spki);
  const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64');
  const key = (k: Keys) => ({
    rawBytes: b64(k.spki),
    keyDetails: 'PKIX_ECDSA_P256_SHA_256',
    validFor: { start: validFrom.toISOString() },
  });
  const trustedRoot = {
    mediaType: 'application/vnd.dev.sigstore.trustedroot+json;version=0.1',
    tlogs: [
      {
        baseUrl: REKOR_URL,
        hashAlgorithm: 'SHA2_256',
        publicKey: key(rekorKeys),
        logId: { keyId: b64(rekorLogId) },
      },
    ],
    certificateAuthorities: [
      {
        subject: { organization: name, commonName: `${name} fulcio` },
        uri: FULCIO_URL,
        certChain: {
          certificates: [
            { rawBytes: b64(Buffer.from(intermediate.rawData)) },
            { rawBytes: b64(Buffer.from(root.rawData)) },
          ],
        },
        validFor: { start: validFrom.toISOString() },
      },
    ],
    ctlogs: [
      {
        baseUrl: CTFE_URL,
        hashAlgorithm: 'SHA2_256',
        publicKey: key(ctKeys),
        logId: { keyId: b64(ctLogId) },
      },
    ],
    timestampAuthorities: [],
  };

  /** A Fulcio-like leaf for `claims`, valid 10 minutes around the signing time, with its SCT. */
  async function leafFor(claims: SignerClaims, leafKeys: Keys): Promise<Buffer> {
    const uri = signerUri(claims);
    const repoUrl = `https://github.com/${claims.repository}`;
    const sha = claims.sha ?? '0a1b2c3d4e5f60718293a4b5c6d7e8f901a2b3c4';
    const issuer = claims.issuer ?? ISSUER;
    const ext = (oid: string, value: Buffer) =>
      new x509.Extension(`1.3.6.1.4.1.57264.1.${oid}`, false, value);
    const base = {
      serialNumber: createHash('sha256')
        .update(uri)
        .update(`${Math.random()}`)
        .digest('hex')
        .slice(0, 32)
        .replace(/^[89a-f]/, '1'),
      subject: '',
      issuer: intermediate.subject,
      notBefore: new Date(signedAt.getTime() - 60_000),
      notAfter: new Date(signedAt.getTime() + 9 * 60_000),
      publicKey: leafKeys.pair.publicKey,
      signingKey: intermediateKeys.pair.privateKey,
      signingAlgorithm: SIGNING,
    };
    const extensions: x509.Extension[] = [
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension(['1.3.6.1.5.5.7.3.3']),
      await x509.SubjectKeyIdentifierExtension.create(leafKeys.pair.publicKey),
      await x509.AuthorityKeyIdentifierExtension.create(intermediateKeys.pair.publicKey),
      new x509.SubjectAlternativeNameExtension([{ type: 'url', value: uri }], true),
      ext('1', Buffer.from(issuer, 'ascii')),
      ext('8', derUtf8(issuer)),
      ext('9', derUtf8(uri)),
      ext('10', derUtf8(sha)),
      ext('11', derUtf8('github-hosted')),
      ext('12', derUtf8(repoUrl)),
      ext('13', derUtf8(sha)),
      ext('14', derUtf8(claims.ref)),
      ext('16', derUtf8(`https://github.com/${claims.repository.split('/')[0]}`)),
      ext('18', derUtf8(uri)),
      ext('19', derUtf8(sha)),
      ext('20', derUtf8('workflow_dispatch')),
      ext('21', derUtf8(`${repoUrl}/actions/runs/1/attempts/1`)),
    ];
    // The precertificate: the TBS without the SCT list, re-encoded the way the verifier does it.
    const pre = await x509.X509CertificateGenerator.create({ ...base, extensions });
    const tbs = SigstoreCertificate.parse(Buffer.from(pre.rawData)).tbsCertificate.toDER();
    const timestamp = Buffer.alloc(8);
    timestamp.writeBigUInt64BE(BigInt(signedAt.getTime() - 30_000));
    const tbsLength = Buffer.from([(tbs.length >> 16) & 0xff, (tbs.length >> 8) & 0xff, tbs.length & 0xff]);
    const signed = Buffer.concat([
      Buffer.from([0, 0]), // v1, certificate_timestamp
      timestamp,
      Buffer.from([0, 1]), // precert_entry
      sha256(intermediateKeys.spki),
      tbsLength,
      tbs,
      Buffer.from([0, 0]), // no extensions
    ]);
    const sig = ecdsa(ctKeys.privateKey, signed);
    const sct = Buffer.concat([
      Buffer.from([0]),
      ctLogId,
      timestamp,
      Buffer.from([0, 0, 4, 3, sig.length >> 8, sig.length & 0xff]),
      sig,
    ]);
    const list = Buffer.concat([
      Buffer.from([(sct.length + 2) >> 8, (sct.length + 2) & 0xff, sct.length >> 8, sct.length & 0xff]),
      sct,
    ]);
    extensions.push(new x509.Extension('1.3.6.1.4.1.11129.2.4.2', false, derOctets(list)));
    const leaf = await x509.X509CertificateGenerator.create({ ...base, extensions });
    return Buffer.from(leaf.rawData);
  }

  async function signStatement(statement: Buffer, claims: SignerClaims): Promise<Record<string, unknown>> {
    const leafKeys = await newKeys();
    const leaf = await leafFor(claims, leafKeys);
    const signature = ecdsa(leafKeys.privateKey, dsse.preAuthEncoding(INTOTO_PAYLOAD_TYPE, statement));
    const envelope = {
      payload: statement.toString('base64'),
      payloadType: INTOTO_PAYLOAD_TYPE,
      signatures: [{ sig: signature.toString('base64'), keyid: '' }],
    };
    const pem = `-----BEGIN CERTIFICATE-----\n${leaf.toString('base64').replace(/(.{64})/g, '$1\n')}\n-----END CERTIFICATE-----\n`;
    const body = Buffer.from(
      json.canonicalize({
        apiVersion: '0.0.1',
        kind: 'dsse',
        spec: {
          envelopeHash: {
            algorithm: 'sha256',
            value: sha256(Buffer.from(JSON.stringify(envelope))).toString('hex'),
          },
          payloadHash: { algorithm: 'sha256', value: sha256(statement).toString('hex') },
          signatures: [
            { signature: signature.toString('base64'), verifier: Buffer.from(pem).toString('base64') },
          ],
        },
      }),
      'utf8',
    );
    const integratedTime = Math.floor(signedAt.getTime() / 1000);
    const logIndex = 0;
    const set = ecdsa(
      rekorKeys.privateKey,
      Buffer.from(
        json.canonicalize({
          body: body.toString('base64'),
          integratedTime,
          logIndex,
          logID: rekorLogId.toString('hex'),
        }),
        'utf8',
      ),
    );
    // A log of one entry: its root is the leaf hash, the proof has no hashes.
    const rootHash = sha256(Buffer.from([0]), body);
    const note = `${new URL(REKOR_URL).host} - 1\n1\n${rootHash.toString('base64')}\n`;
    const noteSig = Buffer.concat([
      rekorLogId.subarray(0, 4),
      ecdsa(rekorKeys.privateKey, Buffer.from(note, 'utf8')),
    ]);
    const checkpoint = `${note}\n\u2014 ${new URL(REKOR_URL).host} ${noteSig.toString('base64')}\n`;
    return {
      mediaType: 'application/vnd.dev.sigstore.bundle.v0.3+json',
      verificationMaterial: {
        certificate: { rawBytes: leaf.toString('base64') },
        tlogEntries: [
          {
            logIndex: `${logIndex}`,
            logId: { keyId: rekorLogId.toString('base64') },
            kindVersion: { kind: 'dsse', version: '0.0.1' },
            integratedTime: `${integratedTime}`,
            inclusionPromise: { signedEntryTimestamp: set.toString('base64') },
            inclusionProof: {
              logIndex: `${logIndex}`,
              rootHash: rootHash.toString('base64'),
              treeSize: '1',
              hashes: [],
              checkpoint: { envelope: checkpoint },
            },
            canonicalizedBody: body.toString('base64'),
          },
        ],
        timestampVerificationData: {},
      },
      dsseEnvelope: envelope,
    };
  }

  return {
    trustedRoot,
    signStatement,
    attest: (subjects, claims) => signStatement(statementFor(subjects, claims), claims),
  };
}

/** The in-toto statement @actions/attest's attestProvenance signs (SLSA v1 provenance, trimmed). */
export function statementFor(
  subjects: Array<{ name: string; digest: { sha256: string } }>,
  claims: SignerClaims,
): Buffer {
  return Buffer.from(
    JSON.stringify({
      _type: 'https://in-toto.io/Statement/v1',
      subject: subjects,
      predicateType: 'https://slsa.dev/provenance/v1',
      predicate: {
        buildDefinition: {
          buildType: 'https://actions.github.io/buildtypes/workflow/v1',
          externalParameters: {
            workflow: {
              ref: claims.ref,
              repository: `https://github.com/${claims.repository}`,
              path: claims.workflow,
            },
          },
        },
        runDetails: { builder: { id: signerUri(claims) } },
      },
    }),
  );
}

/** The subject of one file: its name and the sha256 of its exact bytes. */
export const subjectOf = (file: string, bytes: Uint8Array) => ({
  name: basename(file),
  digest: { sha256: createHash('sha256').update(bytes).digest('hex') },
});
