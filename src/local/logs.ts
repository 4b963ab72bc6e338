/**
 * CloudWatch Logs of the local SageMaker: log group `/aws/sagemaker/Endpoints/<endpoint>`, one
 * stream `<variant>/<instance-id>` per instance, fed line by line from the container's stdout and
 * stderr with the time each line arrived (ms), as the SageMaker log agent does. Answers
 * DescribeLogGroups, DescribeLogStreams, GetLogEvents and FilterLogEvents (JSON 1.1,
 * `Logs_20140328.*`). A line in CloudWatch embedded metric format also becomes metrics (emf.ts),
 * handed to `onMetrics`, as CloudWatch Logs extracts them from every log event it ingests.
 */
import { AwsError } from './aws-error.js';
import type { OperationHandler } from './contracts.js';
import { type EmfDatum, extractEmf } from './emf.js';
import { type Input, memberReader, unknownOperation } from './wire.js';

export interface LogEvent {
  timestamp: number;
  message: string;
  ingestionTime: number;
}

export interface LogStream {
  name: string;
  creationTime: number;
  events: LogEvent[];
}

interface LogGroup {
  name: string;
  creationTime: number;
  streams: Map<string, LogStream>;
}

const invalid = (message: string): AwsError => new AwsError('InvalidParameterException', message, 400);
const noGroup = (): AwsError =>
  new AwsError('ResourceNotFoundException', 'The specified log group does not exist.', 400);
const noStream = (): AwsError =>
  new AwsError('ResourceNotFoundException', 'The specified log stream does not exist.', 400);

export class LogStore {
  private readonly groups = new Map<string, LogGroup>();

  constructor(
    private readonly region: string,
    private readonly accountId: string,
    private readonly now: () => number = Date.now,
    /** Receives the metrics of every embedded-metric-format line. @default none (not extracted) */
    private readonly onMetrics?: (datum: EmfDatum) => void,
  ) {}

  createGroup(name: string): void {
    if (!this.groups.has(name)) this.groups.set(name, { name, creationTime: this.now(), streams: new Map() });
  }

  createStream(group: string, name: string): LogStream {
    this.createGroup(group);
    const g = this.groups.get(group) as LogGroup;
    let s = g.streams.get(name);
    if (!s) {
      s = { name, creationTime: this.now(), events: [] };
      g.streams.set(name, s);
    }
    return s;
  }

  /** Appends one event; `timestamp` is when the line was produced (epoch ms). */
  put(stream: LogStream, message: string, timestamp: number = this.now()): void {
    stream.events.push({ timestamp, message, ingestionTime: Math.max(timestamp, this.now()) });
    if (this.onMetrics) for (const datum of extractEmf(message, timestamp)) this.onMetrics(datum);
  }

  stream(group: string, name: string): LogStream | undefined {
    return this.groups.get(group)?.streams.get(name);
  }

  private group(input: Input): LogGroup {
    const r = memberReader(input, invalid);
    const name = r.str('logGroupName', true) ?? groupNameFromIdentifier(r.str('logGroupIdentifier', true));
    if (name === undefined) throw invalid('logGroupName or logGroupIdentifier is required.');
    const g = this.groups.get(name);
    if (!g) throw noGroup();
    return g;
  }

  private arn(group: string, stream?: string): string {
    const base = `arn:aws:logs:${this.region}:${this.accountId}:log-group:${group}`;
    return stream === undefined ? `${base}:*` : `${base}:log-stream:${stream}`;
  }

  private describeLogGroups(input: Input) {
    const r = memberReader(input, invalid);
    const prefix = r.str('logGroupNamePrefix', true) ?? '';
    return {
      logGroups: [...this.groups.values()]
        .filter((g) => g.name.startsWith(prefix))
        .sort((a, b) => a.name.localeCompare(b.name))
        .map((g) => ({
          logGroupName: g.name,
          creationTime: g.creationTime,
          arn: this.arn(g.name),
          logGroupArn: this.arn(g.name).replace(/:\*$/, ''),
          storedBytes: 0,
          metricFilterCount: 0,
        })),
    };
  }

  private describeLogStreams(input: Input) {
    const g = this.group(input);
    const r = memberReader(input, invalid);
    const prefix = r.str('logStreamNamePrefix', true);
    const orderBy = r.str('orderBy', true) ?? 'LogStreamName';
    const descending = r.bool('descending') ?? false;
    const limit = r.num('limit', true) ?? 50;
    if (orderBy !== 'LogStreamName' && orderBy !== 'LastEventTime')
      throw invalid(`orderBy must be LogStreamName or LastEventTime, not ${orderBy}.`);
    if (prefix !== undefined && orderBy === 'LastEventTime')
      throw invalid('Cannot order by LastEventTime with a logStreamNamePrefix.');
    if (!(limit >= 1 && limit <= 50)) throw invalid('limit must be between 1 and 50.');
    const start = decodeIndex(r.str('nextToken', true));
    const lastEvent = (s: LogStream) => s.events[s.events.length - 1]?.timestamp ?? s.creationTime;
    const streams = [...g.streams.values()]
      .filter((s) => prefix === undefined || s.name.startsWith(prefix))
      .sort((a, b) =>
        orderBy === 'LogStreamName' ? a.name.localeCompare(b.name) : lastEvent(a) - lastEvent(b),
      );
    if (descending) streams.reverse();
    const page = streams.slice(start, start + limit);
    const next = start + page.length < streams.length ? encodeIndex(start + page.length) : undefined;
    return {
      logStreams: page.map((s) => {
        const first = s.events[0];
        const last = s.events[s.events.length - 1];
        return {
          logStreamName: s.name,
          creationTime: s.creationTime,
          ...(first ? { firstEventTimestamp: first.timestamp } : {}),
          ...(last ? { lastEventTimestamp: last.timestamp, lastIngestionTime: last.ingestionTime } : {}),
          arn: this.arn(g.name, s.name),
          storedBytes: 0,
        };
      }),
      ...(next ? { nextToken: next } : {}),
    };
  }

  /**
   * Tokens are positions in the stream: `f/<i>` reads forward from event i, `b/<i>` backward from
   * before event i. As on AWS, at the end of the stream the forward token comes back unchanged,
   * which is how a reader knows it has caught up (and new events later appear behind it).
   */
  private getLogEvents(input: Input) {
    const g = this.group(input);
    const r = memberReader(input, invalid);
    const s = g.streams.get(r.str('logStreamName'));
    if (!s) throw noStream();
    const startTime = r.num('startTime', true);
    const endTime = r.num('endTime', true);
    const limit = r.num('limit', true) ?? 10_000;
    if (!(limit >= 1 && limit <= 10_000)) throw invalid('limit must be between 1 and 10000.');
    const token = r.str('nextToken', true);
    const inRange = (e: LogEvent) =>
      (startTime === undefined || e.timestamp >= startTime) &&
      (endTime === undefined || e.timestamp < endTime);
    const n = s.events.length;
    let forward: boolean;
    let pos: number;
    if (token !== undefined) {
      const m = /^([fb])\/(\d+)$/.exec(token);
      if (!m) throw invalid('The specified nextToken is invalid.');
      forward = m[1] === 'f';
      pos = Math.min(Number(m[2]), n);
    } else {
      forward = r.bool('startFromHead') ?? false;
      pos = forward ? 0 : n;
    }
    const picked: number[] = [];
    if (forward) {
      let i = pos;
      for (; i < n && picked.length < limit; i++) if (inRange(s.events[i] as LogEvent)) picked.push(i);
      const end = picked.length < limit ? n : i;
      return {
        events: picked.map((k) => render(s.events[k] as LogEvent)),
        nextForwardToken: `f/${end}`,
        nextBackwardToken: `b/${picked.length > 0 ? (picked[0] as number) : pos}`,
      };
    }
    let i = pos - 1;
    for (; i >= 0 && picked.length < limit; i--) if (inRange(s.events[i] as LogEvent)) picked.push(i);
    picked.reverse();
    const begin = picked.length < limit ? 0 : (picked[0] as number);
    return {
      events: picked.map((k) => render(s.events[k] as LogEvent)),
      nextForwardToken: `f/${picked.length > 0 ? (picked[picked.length - 1] as number) + 1 : pos}`,
      nextBackwardToken: `b/${begin}`,
    };
  }

  private filterLogEvents(input: Input) {
    const g = this.group(input);
    const r = memberReader(input, invalid);
    const names = r.list('logStreamNames', true) as string[] | undefined;
    const prefix = r.str('logStreamNamePrefix', true);
    if (names && prefix !== undefined)
      throw invalid('Cannot specify both logStreamNames and logStreamNamePrefix.');
    const startTime = r.num('startTime', true);
    const endTime = r.num('endTime', true);
    const limit = r.num('limit', true) ?? 10_000;
    if (!(limit >= 1 && limit <= 10_000)) throw invalid('limit must be between 1 and 10000.');
    const match = compileFilterPattern(r.str('filterPattern', true) ?? '');
    const streams = [...g.streams.values()].filter(
      (s) => (!names || names.includes(s.name)) && (prefix === undefined || s.name.startsWith(prefix)),
    );
    const all: Array<LogEvent & { logStreamName: string; eventId: string }> = [];
    for (const s of streams) {
      s.events.forEach((e, i) => {
        if (startTime !== undefined && e.timestamp < startTime) return;
        if (endTime !== undefined && e.timestamp > endTime) return;
        if (!match(e.message)) return;
        all.push({ ...e, logStreamName: s.name, eventId: `${s.name}/${i}` });
      });
    }
    // Stable by time: events of one stream keep their order when timestamps tie.
    all.sort((a, b) => a.timestamp - b.timestamp);
    const start = decodeIndex(r.str('nextToken', true));
    const page = all.slice(start, start + limit);
    const next = start + page.length < all.length ? encodeIndex(start + page.length) : undefined;
    return {
      events: page.map((e) => ({
        logStreamName: e.logStreamName,
        timestamp: e.timestamp,
        message: e.message,
        ingestionTime: e.ingestionTime,
        eventId: e.eventId,
      })),
      searchedLogStreams: streams.map((s) => ({ logStreamName: s.name, searchedCompletely: true })),
      ...(next ? { nextToken: next } : {}),
    };
  }

  handle: OperationHandler = async (operation, input) => {
    switch (operation) {
      case 'DescribeLogGroups':
        return this.describeLogGroups(input);
      case 'DescribeLogStreams':
        return this.describeLogStreams(input);
      case 'GetLogEvents':
        return this.getLogEvents(input);
      case 'FilterLogEvents':
        return this.filterLogEvents(input);
      default:
        throw unknownOperation(operation);
    }
  };
}

function render(e: LogEvent) {
  return { timestamp: e.timestamp, message: e.message, ingestionTime: e.ingestionTime };
}

function groupNameFromIdentifier(id: string | undefined): string | undefined {
  if (id === undefined) return undefined;
  const m = /^arn:[^:]+:logs:[^:]*:[^:]*:log-group:(.+?)(:\*)?$/.exec(id);
  return m ? m[1] : id;
}

const encodeIndex = (i: number): string => Buffer.from(`i:${i}`).toString('base64url');

function decodeIndex(token: string | undefined): number {
  if (token === undefined) return 0;
  const m = /^i:(\d+)$/.exec(Buffer.from(token, 'base64url').toString());
  if (!m) throw invalid('The specified nextToken is invalid.');
  return Number(m[1]);
}

/**
 * The part of the CloudWatch Logs filter syntax for unstructured text: empty matches everything;
 * terms separated by spaces must all appear (case-sensitive); a "quoted term" is matched as a
 * whole, spaces included; `?term` terms match if any of them appears. JSON (`{ ... }`) and
 * space-delimited (`[ ... ]`) patterns are refused rather than matched wrongly.
 */
export function compileFilterPattern(pattern: string): (message: string) => boolean {
  const p = pattern.trim();
  if (p === '') return () => true;
  if (p.startsWith('{') || p.startsWith('['))
    throw invalid(`The local SageMaker supports only term filter patterns, not: ${pattern}`);
  const terms: Array<{ text: string; optional: boolean; exclude: boolean }> = [];
  const re = /([?-]?)(?:"((?:[^"\\]|\\.)*)"|(\S+))/g;
  for (let m = re.exec(p); m; m = re.exec(p)) {
    const text = m[2] !== undefined ? m[2].replace(/\\(.)/g, '$1') : (m[3] as string);
    terms.push({ text, optional: m[1] === '?', exclude: m[1] === '-' });
  }
  const required = terms.filter((t) => !t.optional && !t.exclude);
  const excluded = terms.filter((t) => t.exclude);
  const optional = terms.filter((t) => t.optional);
  return (message) =>
    required.every((t) => message.includes(t.text)) &&
    !excluded.some((t) => message.includes(t.text)) &&
    (optional.length === 0 || optional.some((t) => message.includes(t.text)));
}
