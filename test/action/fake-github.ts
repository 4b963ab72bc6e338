/**
 * A loopback stand-in for the GitHub REST (and GraphQL `viewer`) API, as much of it as the
 * action calls, behaving as github.com does where it matters to us: issue comments listed 100 at
 * most per page with a Link header, only a comment's author may edit or delete it, installation
 * tokens get 403 from GET /user, contents come base64-encoded. Every request is recorded.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeUser {
  login: string;
  id: number;
  type: 'User' | 'Bot';
}

export interface FakeComment {
  id: number;
  body: string;
  user: FakeUser;
  issueNumber: number;
  createdAt: string;
  updatedAt: string;
}

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  body: unknown;
  token: string | null;
}

export interface FakeGitHubOptions {
  owner?: string;
  repo?: string;
  /** token -> who it authenticates as; `installation` tokens are refused by GET /user (as on GitHub). */
  tokens?: Record<string, FakeUser & { installation?: boolean }>;
  /** When false, POST /graphql answers 500 (to exercise the GET /user fallback). */
  graphql?: boolean;
}

export const ACTIONS_BOT: FakeUser = { login: 'github-actions[bot]', id: 41898282, type: 'Bot' };

export class FakeGitHub {
  readonly owner: string;
  readonly repo: string;
  readonly requests: RecordedRequest[] = [];
  readonly comments: FakeComment[] = [];
  /** ref -> path -> file text (served by the contents API). */
  readonly files = new Map<string, Map<string, string>>();
  tokens: Record<string, FakeUser & { installation?: boolean }>;
  graphql: boolean;
  private nextId = 1000;
  private server: Server | null = null;
  url = '';

  constructor(options: FakeGitHubOptions = {}) {
    this.owner = options.owner ?? 'acme';
    this.repo = options.repo ?? 'speech';
    this.tokens = options.tokens ?? { 'ghs-actions-token': { ...ACTIONS_BOT, installation: true } };
    this.graphql = options.graphql ?? true;
  }

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      this.handle(req, res).catch((e) => {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ message: String(e) }));
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    const { port } = this.server.address() as AddressInfo;
    this.url = `http://127.0.0.1:${port}`;
    return this.url;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
    this.server?.closeAllConnections?.();
  }

  /** Adds a comment as `user` (a PR participant, another bot, or ourselves from an earlier run). */
  seedComment(issueNumber: number, user: FakeUser, body: string): FakeComment {
    const now = new Date().toISOString();
    const comment = { id: this.nextId++, body, user, issueNumber, createdAt: now, updatedAt: now };
    this.comments.push(comment);
    return comment;
  }

  setFile(ref: string, path: string, text: string): void {
    if (!this.files.has(ref)) this.files.set(ref, new Map());
    this.files.get(ref)?.set(path, text);
  }

  commentsOn(issueNumber: number): FakeComment[] {
    return this.comments.filter((c) => c.issueNumber === issueNumber);
  }

  requestsMatching(method: string, pattern: RegExp): RecordedRequest[] {
    return this.requests.filter((r) => r.method === method && pattern.test(r.path));
  }

  resetRequests(): void {
    this.requests.length = 0;
  }

  private htmlUrl(c: FakeComment): string {
    return `https://github.com/${this.owner}/${this.repo}/pull/${c.issueNumber}#issuecomment-${c.id}`;
  }

  private toJson(c: FakeComment): Record<string, unknown> {
    return {
      id: c.id,
      node_id: `IC_${c.id}`,
      url: `${this.url}/repos/${this.owner}/${this.repo}/issues/comments/${c.id}`,
      html_url: this.htmlUrl(c),
      issue_url: `${this.url}/repos/${this.owner}/${this.repo}/issues/${c.issueNumber}`,
      body: c.body,
      user: { login: c.user.login, id: c.user.id, type: c.user.type },
      created_at: c.createdAt,
      updated_at: c.updatedAt,
      author_association: c.user.type === 'Bot' ? 'NONE' : 'MEMBER',
    };
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.url);
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    let body: unknown = null;
    if (raw) {
      try {
        body = JSON.parse(raw);
      } catch {
        body = raw;
      }
    }
    const auth = req.headers.authorization ?? '';
    const token = /^(?:token|bearer)\s+(.+)$/i.exec(auth)?.[1] ?? null;
    const method = req.method ?? 'GET';
    this.requests.push({
      method,
      path: decodeURIComponent(url.pathname),
      query: Object.fromEntries(url.searchParams),
      body,
      token,
    });

    const send = (status: number, json: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
      res.end(json === undefined ? '' : JSON.stringify(json));
    };
    const who = token ? this.tokens[token] : undefined;
    if (!who) return send(401, { message: 'Bad credentials' });

    const repoPrefix = `/repos/${this.owner}/${this.repo}`;
    // Octokit sends the contents path with its slashes encoded (%2F), which GitHub accepts.
    const path = decodeURIComponent(url.pathname);

    if (method === 'POST' && path === '/graphql') {
      if (!this.graphql) return send(500, { message: 'graphql unavailable' });
      const query = typeof body === 'object' && body ? String((body as { query?: unknown }).query ?? '') : '';
      if (!/viewer\s*{\s*login/.test(query)) return send(200, { errors: [{ message: 'unsupported query' }] });
      return send(200, { data: { viewer: { login: who.login } } });
    }
    if (method === 'GET' && path === '/user') {
      if (who.installation) {
        return send(403, {
          message: 'Resource not accessible by integration',
          documentation_url: 'https://docs.github.com/rest/users/users#get-the-authenticated-user',
          status: '403',
        });
      }
      return send(200, { login: who.login, id: who.id, type: who.type });
    }

    let m = new RegExp(`^${escapeRe(repoPrefix)}/issues/(\\d+)/comments$`).exec(path);
    if (m) {
      const issue = Number(m[1]);
      if (method === 'GET') {
        const perPage = Math.min(100, Math.max(1, Number(url.searchParams.get('per_page') ?? 30)));
        const page = Math.max(1, Number(url.searchParams.get('page') ?? 1));
        const all = this.commentsOn(issue).sort((a, b) => a.id - b.id);
        const last = Math.max(1, Math.ceil(all.length / perPage));
        const slice = all.slice((page - 1) * perPage, page * perPage);
        const link = (p: number, rel: string) => {
          const u = new URL(url.toString());
          u.searchParams.set('per_page', `${perPage}`);
          u.searchParams.set('page', `${p}`);
          return `<${u.toString()}>; rel="${rel}"`;
        };
        const links: string[] = [];
        if (page < last) links.push(link(page + 1, 'next'), link(last, 'last'));
        if (page > 1) links.push(link(1, 'first'), link(page - 1, 'prev'));
        return send(
          200,
          slice.map((c) => this.toJson(c)),
          links.length ? { link: links.join(', ') } : {},
        );
      }
      if (method === 'POST') {
        const text = (body as { body?: unknown })?.body;
        if (typeof text !== 'string' || text === '') return send(422, { message: 'Validation Failed' });
        const comment = this.seedComment(issue, { login: who.login, id: who.id, type: who.type }, text);
        return send(201, this.toJson(comment));
      }
    }

    m = new RegExp(`^${escapeRe(repoPrefix)}/issues/comments/(\\d+)$`).exec(path);
    if (m) {
      const comment = this.comments.find((c) => c.id === Number(m?.[1]));
      if (!comment) return send(404, { message: 'Not Found' });
      if (method === 'GET') return send(200, this.toJson(comment));
      // Only the author may edit or delete a comment (repository admins aside; our bot is not one).
      if (comment.user.login !== who.login)
        return send(403, { message: 'Resource not accessible by integration' });
      if (method === 'PATCH') {
        const text = (body as { body?: unknown })?.body;
        if (typeof text !== 'string' || text === '') return send(422, { message: 'Validation Failed' });
        comment.body = text;
        comment.updatedAt = new Date().toISOString();
        return send(200, this.toJson(comment));
      }
      if (method === 'DELETE') {
        this.comments.splice(this.comments.indexOf(comment), 1);
        res.writeHead(204);
        res.end();
        return;
      }
    }

    m = new RegExp(`^${escapeRe(repoPrefix)}/contents/(.+)$`).exec(path);
    if (m && method === 'GET') {
      const filePath = m[1] as string;
      const ref = url.searchParams.get('ref') ?? 'main';
      const text = this.files.get(ref)?.get(filePath);
      if (text === undefined) {
        return send(404, {
          message: 'Not Found',
          documentation_url: 'https://docs.github.com/rest/repos/contents#get-repository-content',
        });
      }
      const content = Buffer.from(text, 'utf8')
        .toString('base64')
        .replace(/(.{60})/g, '$1\n');
      return send(200, {
        type: 'file',
        encoding: 'base64',
        size: Buffer.byteLength(text),
        name: filePath.split('/').pop(),
        path: filePath,
        content,
        sha: 'f'.repeat(40),
      });
    }

    return send(404, { message: `Not Found (fake GitHub has no ${method} ${path})` });
  }
}

const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
