/**
 * Is this artifact attested by the calibrate workflow of this repository, run from its default
 * branch? Pure, given the artifact's exact bytes, its Sigstore bundle, a trust root and the
 * expected signer: @sigstore/verify checks the certificate chain against the trust root's CAs
 * (with its SCT), the transparency-log entry (its signed entry timestamp and inclusion proof), the
 * DSSE signature, and the certificate's identity (SAN, OIDC issuer, Fulcio's Build Signer URI,
 * Source Repository URI and Ref extensions); then the signed in-toto statement must name this file
 * and the sha256 of these bytes. Each refusal says what did not match.
 *
 * The thresholds are the verifier's defaults (one SCT, one log entry, one timestamp) for a root
 * that has transparency and CT logs (the public-good instance); a root without them (GitHub's own
 * instance, for private repositories, which timestamps with its TSA instead) needs one signed
 * timestamp and no log entry, as `gh attestation verify` does.
 */
import { createHash } from 'node:crypto';
import { basename } from 'node:path';
import { type Bundle, bundleFromJSON } from '@sigstore/bundle';
import { X509Certificate } from '@sigstore/core';
import { TrustedRoot } from '@sigstore/protobuf-specs';
import {
  PolicyError,
  type TrustMaterial,
  toSignedEntity,
  toTrustMaterial,
  VerificationError,
  Verifier,
  type VerifierOptions,
} from '@sigstore/verify';
import { type AttestedFile, opt, usage } from '../model/index.js';

export const GITHUB_OIDC_ISSUER = 'https://token.actions.githubusercontent.com';
const GITHUB = 'https://github.com';
const INTOTO_PAYLOAD_TYPE = 'application/vnd.in-toto+json';
const OID = {
  issuerV1: '1.3.6.1.4.1.57264.1.1',
  issuer: '1.3.6.1.4.1.57264.1.8',
  buildSignerUri: '1.3.6.1.4.1.57264.1.9',
  sourceRepositoryUri: '1.3.6.1.4.1.57264.1.12',
  sourceRepositoryRef: '1.3.6.1.4.1.57264.1.14',
} as const;

/** Who must have signed: `https://github.com/<repository>/<signerWorkflow>@<ref>`. */
export interface ExpectedSigner {
  repository: string;
  signerWorkflow: string;
  ref: string;
}

export const signerIdentity = (e: ExpectedSigner): string =>
  `${GITHUB}/${e.repository}/${e.signerWorkflow}@${e.ref}`;

interface Root {
  material: TrustMaterial;
  options: VerifierOptions;
}

/** The trust roots of a `--trusted-root` file, ready to verify with. */
export interface TrustRoots {
  file: string;
  roots: Root[];
}

/**
 * A Sigstore TrustedRoot JSON, or the JSON lines `gh attestation trusted-root` prints (one root
 * per line: the public-good instance and GitHub's). A file that is neither is refused (exit 2).
 */
export function parseTrustedRoots(text: string, file: string): TrustRoots {
  const refuse = (why: string) =>
    usage`${opt('trusted-root', file)}: ${why}. Get the trust root with \`gh attestation trusted-root > trusted_root.jsonl\`.`;
  let documents: unknown[];
  try {
    documents = [JSON.parse(text)];
  } catch {
    const lines = text.split('\n').filter((l) => l.trim() !== '');
    documents = lines.map((line, i) => {
      try {
        return JSON.parse(line);
      } catch (e) {
        throw refuse(`neither a TrustedRoot JSON nor JSON lines (line ${i + 1}: ${(e as Error).message})`);
      }
    });
  }
  if (documents.length === 0) throw refuse('empty');
  const roots = documents.map((doc, i) => {
    const where = documents.length > 1 ? ` (line ${i + 1})` : '';
    const media = (doc as { mediaType?: unknown } | null)?.mediaType;
    if (typeof media !== 'string' || !media.includes('trustedroot')) {
      throw refuse(
        `not a Sigstore TrustedRoot${where} (its mediaType is not application/vnd.dev.sigstore.trustedroot+json)`,
      );
    }
    let material: TrustMaterial;
    let root: TrustedRoot;
    try {
      root = TrustedRoot.fromJSON(doc);
      material = toTrustMaterial(root);
    } catch (e) {
      throw refuse(`an unusable TrustedRoot${where} (${(e as Error).message})`);
    }
    if (material.certificateAuthorities.length === 0) throw refuse(`no certificate authority${where}`);
    const withLogs = material.tlogs.length > 0;
    return {
      material,
      options: {
        tlogThreshold: withLogs ? 1 : 0,
        ctlogThreshold: material.ctlogs.length > 0 ? 1 : 0,
        timestampThreshold: 1,
      },
    };
  });
  return { file, roots };
}

export type AttestationProblem =
  | 'unreadable'
  | 'missing-bundle'
  | 'bad-bundle'
  | 'untrusted-ca'
  | 'bad-signature'
  | 'transparency-log'
  | 'other-issuer'
  | 'other-repository'
  | 'other-workflow'
  | 'other-ref'
  | 'other-name'
  | 'other-digest';

export type AttestationVerdict =
  | { ok: true; signer: string }
  | { ok: false; problem: AttestationProblem; detail: string };

const refused = (problem: AttestationProblem, detail: string): AttestationVerdict => ({
  ok: false,
  problem,
  detail,
});

export interface VerifyAttestationInput {
  /** The artifact's path: its base name must be the statement's subject name. */
  file: string;
  bytes: Uint8Array;
  /** The bundle, parsed JSON. */
  bundle: unknown;
  trust: TrustRoots;
  expected: ExpectedSigner;
}

const hex = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');
const short = (digest: string): string => `${digest.slice(0, 12)}…`;

/** Of the roots' errors, the one that says most: an identity refused after the crypto held, then a bad signature or log entry, then an untrusted chain. */
function rank(e: unknown): number {
  if (e instanceof PolicyError) return 3;
  if (e instanceof VerificationError && e.code !== 'CERTIFICATE_ERROR') return 2;
  return 1;
}

export function verifyAttestation(input: VerifyAttestationInput): AttestationVerdict {
  const { file, expected } = input;
  let bundle: Bundle;
  try {
    bundle = bundleFromJSON(input.bundle);
  } catch (e) {
    return refused('bad-bundle', `not a Sigstore bundle (${(e as Error).message})`);
  }
  if (bundle.content.$case !== 'dsseEnvelope') {
    return refused('bad-bundle', 'not a DSSE attestation (a bare message signature)');
  }
  const envelope = bundle.content.dsseEnvelope;
  if (envelope.payloadType !== INTOTO_PAYLOAD_TYPE) {
    return refused('bad-bundle', `its payload is ${envelope.payloadType}, not an in-toto statement`);
  }
  const expectedUri = signerIdentity(expected);
  const policy = {
    subjectAlternativeName: `^${expectedUri.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$`,
    extensions: { issuer: GITHUB_OIDC_ISSUER },
    oids: [
      { oid: { id: OID.buildSignerUri.split('.').map(Number) }, value: derUtf8(expectedUri) },
      {
        oid: { id: OID.sourceRepositoryUri.split('.').map(Number) },
        value: derUtf8(`${GITHUB}/${expected.repository}`),
      },
      { oid: { id: OID.sourceRepositoryRef.split('.').map(Number) }, value: derUtf8(expected.ref) },
    ],
  };
  let best: unknown = null;
  let verified = false;
  for (const root of input.trust.roots) {
    try {
      new Verifier(root.material, root.options).verify(toSignedEntity(bundle), policy);
      verified = true;
      break;
    } catch (e) {
      if (best === null || rank(e) > rank(best)) best = e;
    }
  }
  if (!verified) return explain(best, bundle, expected);

  let statement: { subject?: unknown };
  try {
    statement = JSON.parse(Buffer.from(envelope.payload).toString('utf8'));
  } catch (e) {
    return refused('bad-bundle', `its signed statement is not JSON (${(e as Error).message})`);
  }
  const subjects = Array.isArray(statement.subject)
    ? (statement.subject as Array<{ name?: unknown; digest?: { sha256?: unknown } }>)
    : [];
  const name = basename(file);
  const digest = hex(input.bytes);
  const mine = subjects.find((s) => s?.name === name);
  if (!mine) {
    const names = subjects.map((s) => String(s?.name)).join(', ') || 'nothing';
    return refused('other-name', `the attestation is of ${names}, not of ${name}`);
  }
  if (mine.digest?.sha256 !== digest) {
    return refused(
      'other-digest',
      `attested digest sha256:${short(String(mine.digest?.sha256))} is not this file's sha256:${short(digest)} (the file changed after it was attested)`,
    );
  }
  return { ok: true, signer: expectedUri };
}

/** DER of a UTF8String (how Fulcio's v2 extensions carry their values). */
function derUtf8(value: string): Buffer {
  const bytes = Buffer.from(value, 'utf8');
  const n = bytes.length;
  const length = n < 0x80 ? [n] : n < 0x100 ? [0x81, n] : [0x82, n >> 8, n & 0xff];
  return Buffer.concat([Buffer.from([0x0c, ...length]), bytes]);
}

function leafOf(bundle: Bundle): X509Certificate | null {
  const content = bundle.verificationMaterial.content;
  const raw =
    content.$case === 'certificate'
      ? content.certificate.rawBytes
      : content.$case === 'x509CertificateChain'
        ? content.x509CertificateChain.certificates[0]?.rawBytes
        : undefined;
  if (!raw) return null;
  try {
    return X509Certificate.parse(Buffer.from(raw));
  } catch {
    return null;
  }
}

/** A Fulcio v2 extension's text (DER UTF8String inside the OCTET STRING); v1 ones are raw bytes. */
function extensionText(cert: X509Certificate, oid: string, raw = false): string | null {
  const ext = cert.extension(oid);
  if (!ext) return null;
  try {
    return (raw ? ext.value : (ext.valueObj.subs[0]?.value ?? ext.value)).toString('utf8');
  } catch {
    return null;
  }
}

/** Why verification failed, in terms of what the gate expected. */
function explain(error: unknown, bundle: Bundle, expected: ExpectedSigner): AttestationVerdict {
  if (error instanceof PolicyError) {
    const cert = leafOf(bundle);
    const san = cert?.subjectAltName ?? null;
    const issuer = cert ? (extensionText(cert, OID.issuer) ?? extensionText(cert, OID.issuerV1, true)) : null;
    const repository = cert ? extensionText(cert, OID.sourceRepositoryUri) : null;
    const sourceRef = cert ? extensionText(cert, OID.sourceRepositoryRef) : null;
    const signedBy = `signed by ${san ?? 'an identity without a URI'}`;
    if (issuer !== GITHUB_OIDC_ISSUER) {
      return refused(
        'other-issuer',
        `${signedBy}, whose OIDC issuer is ${issuer ?? 'not recorded'}, not ${GITHUB_OIDC_ISSUER}`,
      );
    }
    if (repository !== `${GITHUB}/${expected.repository}`) {
      return refused(
        'other-repository',
        `${signedBy}: a run of another repository (${repository?.replace(`${GITHUB}/`, '') ?? 'not recorded'}), not ${expected.repository}`,
      );
    }
    const at = san ? san.lastIndexOf('@') : -1;
    const workflow = san && at > 0 ? san.slice(0, at) : san;
    const ref = san && at > 0 ? san.slice(at + 1) : null;
    if (workflow !== `${GITHUB}/${expected.repository}/${expected.signerWorkflow}`) {
      return refused(
        'other-workflow',
        `${signedBy}: another workflow (${workflow?.replace(`${GITHUB}/${expected.repository}/`, '') ?? 'none'}), not ${expected.signerWorkflow}`,
      );
    }
    if (ref !== expected.ref || sourceRef !== expected.ref) {
      return refused(
        'other-ref',
        `${signedBy}: a run from ${ref !== expected.ref ? ref : sourceRef}, not from ${expected.ref} (the default branch)`,
      );
    }
    return refused('other-workflow', `${signedBy}: ${(error as Error).message}`);
  }
  if (error instanceof VerificationError) {
    switch (error.code) {
      case 'CERTIFICATE_ERROR':
        return refused(
          'untrusted-ca',
          `its certificate does not verify against a certificate authority of the trust root (${error.message})`,
        );
      case 'SIGNATURE_ERROR':
        return refused('bad-signature', 'its signature does not verify over its statement');
      case 'TLOG_BODY_ERROR':
        return refused(
          'bad-signature',
          `its statement or signature is not what the transparency log recorded (${error.message})`,
        );
      default:
        return refused(
          'transparency-log',
          `its transparency-log entry or timestamp does not verify against the trust root (${error.code}: ${error.message})`,
        );
    }
  }
  return refused('bad-bundle', `unverifiable (${(error as Error)?.message ?? String(error)})`);
}

/**
 * What the gate needs to judge every proof it read: the files, the trust root, the expected
 * signer; or why it cannot (the CDK synth without a trust root), which refuses the check.
 */
export type AttestationEvidence =
  | { trust: TrustRoots; expected: ExpectedSigner; files: AttestedFile[] }
  | { unavailable: string; fix: string };

/** The gate's `attested` check (src/plan/gate.ts names it): every file verified, or each failure with why. */
export function attestedCheck(evidence: AttestationEvidence): {
  ok: boolean;
  detail: string;
  fix: string | null;
} {
  if ('unavailable' in evidence) return { ok: false, detail: evidence.unavailable, fix: evidence.fix };
  const { expected, trust } = evidence;
  const signer = signerIdentity(expected);
  const failures: string[] = [];
  for (const f of evidence.files) {
    const verdict = judgeFile(f, evidence);
    if (!verdict.ok) failures.push(`${f.file}: ${verdict.detail}`);
  }
  const names = evidence.files.map((f) => basename(f.file)).join(', ');
  if (failures.length === 0) {
    return {
      ok: true,
      detail: `${evidence.files.length} files attested by ${signer} (trust root ${trust.file}): ${names}`,
      fix: null,
    };
  }
  return {
    ok: false,
    detail: `${failures.length} of ${evidence.files.length} proofs not attested by ${signer}: ${failures.join('; ')}`,
    fix: `re-run the calibrate workflow (${expected.signerWorkflow}) from ${expected.ref} of ${expected.repository}: it measures, attests each artifact it writes and commits it with its bundle (artifacts/attestations/<file>.sigstore.json); a file typed, edited or produced anywhere else is never attested`,
  };
}

function judgeFile(
  f: AttestedFile,
  evidence: { trust: TrustRoots; expected: ExpectedSigner },
): AttestationVerdict {
  if (f.bytes === null) return refused('unreadable', `unreadable (${f.error ?? 'no bytes'})`);
  if (f.bundle === null) {
    return refused('missing-bundle', `no attestation (${f.bundleFile}: ${f.bundleError ?? 'missing'})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(f.bundle);
  } catch (e) {
    return refused('bad-bundle', `${f.bundleFile} is not JSON (${(e as Error).message})`);
  }
  return verifyAttestation({
    file: f.file,
    bytes: f.bytes,
    bundle: json,
    trust: evidence.trust,
    expected: evidence.expected,
  });
}
