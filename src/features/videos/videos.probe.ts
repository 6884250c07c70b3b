import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import type { MediaConfig } from '../../config.ts';
import type { VideoMime } from './videos.sniff.ts';

/**
 * ffprobe and ffmpeg, behind one small adapter. They come from JOBSITE_FFPROBE_PATH /
 * JOBSITE_FFMPEG_PATH when set (`off` disables), else from the npm packages
 * @ffprobe-installer/ffprobe and @ffmpeg-installer/ffmpeg (the binaries ship inside the
 * registry tarballs), else from PATH. Each is checked once by running `-version`; one that does
 * not run counts as absent, and videos are then stored without metadata or poster.
 */
export class VideoTools {
  private static readonly found = new Map<string, Promise<string | null>>();

  private constructor(readonly ffprobe: string | null, readonly ffmpeg: string | null) {}

  static async locate(media: Pick<MediaConfig, 'ffmpegPath' | 'ffprobePath'>): Promise<VideoTools> {
    const [ffprobe, ffmpeg] = await Promise.all([
      VideoTools.find(media.ffprobePath, '@ffprobe-installer/ffprobe', 'ffprobe'),
      VideoTools.find(media.ffmpegPath, '@ffmpeg-installer/ffmpeg', 'ffmpeg'),
    ]);
    return new VideoTools(ffprobe, ffmpeg);
  }

  private static find(configured: string | null, npmPackage: string, command: string): Promise<string | null> {
    const cacheKey = `${configured ?? ''}\0${command}`;
    let found = VideoTools.found.get(cacheKey);
    if (!found) {
      found = (async () => {
        if (configured === 'off') return null;
        const candidates = configured ? [configured] : [fromNpm(npmPackage), command].filter((c): c is string => c !== null);
        for (const candidate of candidates) if (await runs(candidate)) return candidate;
        return null;
      })();
      VideoTools.found.set(cacheKey, found);
    }
    return found;
  }

  /** Container and stream facts (ffprobe's JSON); a file that is not a readable video throws VideoUnreadableError. */
  async probe(file: string, type: VideoMime): Promise<ProbeResult> {
    if (!this.ffprobe) throw new Error('ffprobe is not available');
    const out = await run(this.ffprobe, ['-v', 'error', ...inputOptions(type), '-print_format', 'json', '-show_format', '-show_streams', file], PROBE_TIMEOUT_MS, file);
    let json: FfprobeOutput;
    try {
      json = JSON.parse(out.toString('utf8')) as FfprobeOutput;
    } catch {
      throw new VideoUnreadableError('ffprobe gave no readable description of the file');
    }
    return parseProbe(json);
  }

  /**
   * One frame as a JPEG, displayed the right way up (ffmpeg applies the file's rotation), its
   * longest side at most `maxSide`: at 1 s (or half the duration of a shorter video), else the
   * first frame.
   */
  async poster(file: string, type: VideoMime, durationS: number | null, maxSide: number): Promise<Buffer> {
    if (!this.ffmpeg) throw new Error('ffmpeg is not available');
    const frameAt = async (seconds: number) => run(this.ffmpeg!, [
      '-nostdin', '-v', 'error', '-ss', seconds.toFixed(3), ...inputOptions(type), '-i', file, '-map', '0:v:0', '-frames:v', '1', '-an', '-sn', '-dn',
      '-vf', `scale=w='min(${maxSide},iw)':h='min(${maxSide},ih)':force_original_aspect_ratio=decrease`,
      '-f', 'image2pipe', '-c:v', 'mjpeg', '-q:v', '3', 'pipe:1',
    ], POSTER_TIMEOUT_MS, file);
    const at = durationS && durationS > 0 ? Math.min(1, durationS / 2) : 0;
    let jpeg = await frameAt(at);
    if (jpeg.length === 0 && at > 0) jpeg = await frameAt(0);
    if (jpeg.length === 0) throw new VideoUnreadableError('no frame of the video could be decoded');
    return jpeg;
  }
}

/**
 * The demuxer of the sniffed type, and local files only: ffmpeg would otherwise pick a demuxer by
 * its own probing, and some (HLS playlists, concat lists) open other files and URLs they name.
 */
const inputOptions = (type: VideoMime): string[] =>
  ['-protocol_whitelist', 'file', '-f', type === 'video/webm' ? 'matroska' : 'mov'];

/** The file cannot be read as a video: the processing fails with this message (no retry). */
export class VideoUnreadableError extends Error {
  override readonly name = 'VideoUnreadableError';
}

export interface ProbeResult {
  durationS: number | null;
  /** As displayed: swapped when the file asks for a quarter turn. */
  width: number | null;
  height: number | null;
  codec: string | null;
  capturedAt: Date | null;
  coordinates: { lat: number; lon: number; altitude: number | null } | null;
}

const PROBE_TIMEOUT_MS = 60_000;
const POSTER_TIMEOUT_MS = 120_000;

interface FfprobeStream {
  codec_type?: string;
  codec_name?: string;
  width?: number;
  height?: number;
  duration?: string;
  disposition?: { attached_pic?: number };
  tags?: Record<string, string>;
  side_data_list?: { rotation?: number }[];
}
interface FfprobeOutput {
  streams?: FfprobeStream[];
  format?: { duration?: string; tags?: Record<string, string> };
}

/** What ffprobe's JSON says about the video (exported for tests). */
export function parseProbe(json: FfprobeOutput): ProbeResult {
  const video = (json.streams ?? []).find((s) => s.codec_type === 'video' && !s.disposition?.attached_pic);
  if (!video) throw new VideoUnreadableError('the file has no video stream');
  const formatTags = lowerKeys(json.format?.tags);
  const streamTags = lowerKeys(video.tags);
  const duration = Number(json.format?.duration ?? video.duration);
  let width = positiveInt(video.width);
  let height = positiveInt(video.height);
  const rotation = Number(video.side_data_list?.find((d) => d.rotation !== undefined)?.rotation ?? streamTags.rotate ?? 0);
  if (Math.abs(rotation) % 180 === 90) [width, height] = [height, width];
  return {
    durationS: Number.isFinite(duration) && duration >= 0 ? Math.round(duration * 1000) / 1000 : null,
    width,
    height,
    codec: video.codec_name ?? null,
    capturedAt: parseCreationTime(formatTags['com.apple.quicktime.creationdate'])
      ?? parseCreationTime(formatTags.creation_time) ?? parseCreationTime(streamTags.creation_time),
    coordinates: parseIso6709(formatTags['com.apple.quicktime.location.iso6709'] ?? formatTags.location ?? formatTags['location-eng'] ?? ''),
  };
}

/**
 * A creation time as containers write it (`2026-05-04T09:30:15.000000Z`, Apple's
 * `2026-05-04T11:30:15+0200`). A zero date (1904 or 1970, what a camera without a clock
 * writes) or one more than a day in the future is no time at all.
 */
export function parseCreationTime(text: string | undefined): Date | null {
  if (!text) return null;
  const normalized = text.trim().replace(' ', 'T').replace(/([+-]\d{2})(\d{2})$/, '$1:$2');
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?$/i.test(normalized)) return null;
  const t = Date.parse(/(Z|[+-]\d{2}:\d{2})$/i.test(normalized) ? normalized : `${normalized}Z`);
  if (Number.isNaN(t) || t < Date.UTC(1971, 0, 1) || t > Date.now() + 24 * 3600_000) return null;
  return new Date(t);
}

/**
 * An ISO 6709 point as phones write it (`+48.8584+002.2945+035.000/`), in decimal degrees or
 * degrees-minutes(-seconds) form, with an optional altitude in metres. `+00.0000+000.0000` is
 * what a device without a fix writes: no location.
 */
export function parseIso6709(text: string): { lat: number; lon: number; altitude: number | null } | null {
  const m = /^([+-]\d+(?:\.\d*)?)([+-]\d+(?:\.\d*)?)([+-]\d+(?:\.\d*)?)?(?:CRS[^/]*)?\/?$/.exec(text.trim());
  if (!m) return null;
  const lat = sexagesimal(m[1]!, 2);
  const lon = sexagesimal(m[2]!, 3);
  if (lat === null || lon === null || Math.abs(lat) > 90 || Math.abs(lon) > 180 || (lat === 0 && lon === 0)) return null;
  const altitude = m[3] === undefined ? null : Number(m[3]);
  return { lat, lon, altitude: altitude !== null && Number.isFinite(altitude) && altitude >= -20_000 && altitude <= 100_000 ? altitude : null };
}

/** ±DD.dd, ±DDMM.mm or ±DDMMSS.ss (latitude; longitude has one more degree digit) as decimal degrees. */
function sexagesimal(part: string, degreeDigits: number): number | null {
  const sign = part[0] === '-' ? -1 : 1;
  const [int = '', frac = ''] = part.slice(1).split('.');
  const fraction = frac ? Number(`0.${frac}`) : 0;
  let value: number;
  if (int.length === degreeDigits) value = Number(int) + fraction;
  else if (int.length === degreeDigits + 2) value = Number(int.slice(0, degreeDigits)) + (Number(int.slice(degreeDigits)) + fraction) / 60;
  else if (int.length === degreeDigits + 4) {
    value = Number(int.slice(0, degreeDigits)) + Number(int.slice(degreeDigits, degreeDigits + 2)) / 60 + (Number(int.slice(degreeDigits + 2)) + fraction) / 3600;
  } else return null;
  return Number.isFinite(value) ? sign * Math.round(value * 1e7) / 1e7 : null;
}

const lowerKeys = (tags: Record<string, string> | undefined): Record<string, string> =>
  Object.fromEntries(Object.entries(tags ?? {}).map(([k, v]) => [k.toLowerCase(), String(v)]));

const positiveInt = (n: unknown): number | null => (typeof n === 'number' && Number.isInteger(n) && n > 0 ? n : null);

/** The binary's path from an npm package that ships one for this platform, or null. */
function fromNpm(name: string): string | null {
  try {
    const path = (createRequire(import.meta.url)(name) as { path?: unknown }).path;
    return typeof path === 'string' ? path : null;
  } catch {
    return null; // not installed, or no build for this platform
  }
}

async function runs(command: string): Promise<boolean> {
  try {
    await run(command, ['-version'], 10_000);
    return true;
  } catch {
    return false;
  }
}

/**
 * Runs a command and returns its stdout. A non-zero exit or a timeout is the file's fault
 * (VideoUnreadableError, with ffmpeg's own complaint); failing to start at all is not.
 */
function run(command: string, args: string[], timeoutMs: number, file?: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { encoding: 'buffer', timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: 64 * 1024 * 1024, windowsHide: true }, (err, stdout, stderr) => {
      if (!err) return resolve(stdout);
      const spawnFailed = typeof (err as NodeJS.ErrnoException).code === 'string';
      if (spawnFailed && (err as NodeJS.ErrnoException).code !== 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER') return reject(err);
      if (err.killed) return reject(new VideoUnreadableError(`reading the video took longer than ${timeoutMs / 1000} s`));
      // ffmpeg's lines without its `[demuxer @ 0x…]` prefixes or our temporary path, e.g.
      // `moov atom not found; Invalid data found when processing input`.
      const lines = stderr.toString('utf8').split('\n')
        .map((line) => (file ? line.replaceAll(`${file}: `, '').replaceAll(file, 'the file') : line).replace(/^\[[^\]]*@ 0x[0-9a-f]+\]\s*/, '').trim())
        .filter(Boolean);
      const complaint = [...new Set(lines)].join('; ').slice(0, 300);
      reject(new VideoUnreadableError(complaint ? `the file cannot be read as a video: ${complaint}` : 'the file cannot be read as a video'));
    });
  });
}
