import { useId, useRef, useState, type KeyboardEvent, type PointerEvent } from 'react';
import { ApiProblem } from '../api.ts';
import { ErrorMessage } from '../ErrorMessage.tsx';
import { useAction } from '../useAction.ts';
import { describeShapes, ShapeElements } from './AnnotationShapes.tsx';
import { photosApi, type PhotoDetail, type Shape, type ShapeType, type WithEtag } from './photosApi.ts';
import './annotate.css';

const TOOLS: Array<[ShapeType, string]> = [
  ['arrow', 'Arrow'], ['line', 'Line'], ['rectangle', 'Rectangle'], ['ellipse', 'Ellipse'], ['path', 'Freehand'], ['text', 'Text'],
];
/** Named colours that read on sites' greys, browns and skies. */
export const COLOURS: Array<[string, string]> = [
  ['#e02020', 'Red'], ['#ff8c00', 'Orange'], ['#ffd400', 'Yellow'], ['#1e9e3a', 'Green'], ['#1f6feb', 'Blue'], ['#ffffff', 'White'], ['#000000', 'Black'],
];
/** Stroke width and the text size that goes with it, as fractions of the photo's longest side. */
const WIDTHS: Array<[string, number, number]> = [['Thin', 0.003, 0.03], ['Medium', 0.006, 0.045], ['Thick', 0.012, 0.07]];
const MAX_POINTS = 10_000;
/** A drag shorter than this (of the photo's size) draws nothing: it was a tap. */
const MIN_DRAG = 0.005;

const clamp01 = (v: number) => Math.min(1, Math.max(0, v));
const round = (v: number) => Math.round(v * 100_000) / 100_000;

interface Props {
  photo: PhotoDetail;
  etag: string | null;
  src: string;
  alt: string;
  width: number;
  height: number;
  onSaved(saved: WithEtag<PhotoDetail>): void;
  onCancel(): void;
}

/**
 * Drawing over the photo (loaded on demand: React.lazy). Shapes are drawn with a pointer (mouse,
 * pen or touch) on an SVG that covers the image; a text can also be placed at the centre with the
 * keyboard. Save sends every shape (PUT /v1/photos/{id}/annotations, with If-Match).
 */
export default function AnnotationEditor({ photo, etag, src, alt, width, height, onSaved, onCancel }: Props) {
  const [shapes, setShapes] = useState<Shape[]>(photo.annotations);
  const [undone, setUndone] = useState<Shape[][]>([]);
  const [history, setHistory] = useState<Shape[][]>([]);
  const [draft, setDraft] = useState<Shape | null>(null);
  const [tool, setTool] = useState<ShapeType>('arrow');
  const [color, setColor] = useState(COLOURS[0]![0]);
  const [widthName, setWidthName] = useState('Medium');
  const [text, setText] = useState('');
  const [notice, setNotice] = useState<string | null>(null);
  const action = useAction();
  const [stale, setStale] = useState(false);
  const start = useRef<[number, number] | null>(null);
  const ids = useId();
  const [, strokeWidth, textSize] = WIDTHS.find(([name]) => name === widthName)!;

  function change(next: Shape[], words: string) {
    setHistory((h) => [...h, shapes]);
    setUndone([]);
    setShapes(next);
    setNotice(words);
  }
  function undo() {
    const previous = history[history.length - 1];
    if (!previous) return;
    setHistory(history.slice(0, -1));
    setUndone((u) => [...u, shapes]);
    setShapes(previous);
    setNotice(`Undone. ${describe(previous)}`);
  }
  function redo() {
    const next = undone[undone.length - 1];
    if (!next) return;
    setUndone(undone.slice(0, -1));
    setHistory((h) => [...h, shapes]);
    setShapes(next);
    setNotice(`Redone. ${describe(next)}`);
  }
  const describe = (list: Shape[]) => `On the photo: ${describeShapes(list)}.`;

  function placeText(x: number, y: number) {
    const words = text.trim();
    if (!words) {
      setNotice('Type the text first, then place it.');
      return;
    }
    const next = [...shapes, { type: 'text' as const, x: round(x), y: round(y), text: words, color, size: textSize }];
    change(next, `Text placed. ${describe(next)}`);
  }

  function pointAt(e: PointerEvent<SVGSVGElement>): [number, number] {
    const box = e.currentTarget.getBoundingClientRect();
    return [clamp01((e.clientX - box.left) / box.width), clamp01((e.clientY - box.top) / box.height)];
  }
  function shapeBetween([x1, y1]: [number, number], [x2, y2]: [number, number]): Shape {
    const stroke = { color, width: strokeWidth };
    if (tool === 'arrow' || tool === 'line') return { type: tool, x1: round(x1), y1: round(y1), x2: round(x2), y2: round(y2), ...stroke };
    const x = round(Math.min(x1, x2)), y = round(Math.min(y1, y2));
    return { type: tool === 'ellipse' ? 'ellipse' : 'rectangle', x, y, w: round(Math.min(Math.abs(x2 - x1), 1 - x)), h: round(Math.min(Math.abs(y2 - y1), 1 - y)), ...stroke };
  }
  function onPointerDown(e: PointerEvent<SVGSVGElement>) {
    if (e.button !== 0) return;
    e.preventDefault();
    const p = pointAt(e);
    if (tool === 'text') {
      placeText(p[0], p[1]);
      return;
    }
    e.currentTarget.setPointerCapture(e.pointerId);
    start.current = p;
    setDraft(tool === 'path' ? { type: 'path', points: [[round(p[0]), round(p[1])]], color, width: strokeWidth } : shapeBetween(p, p));
  }
  function onPointerMove(e: PointerEvent<SVGSVGElement>) {
    if (!start.current || !draft) return;
    const p = pointAt(e);
    if (draft.type === 'path') {
      const last = draft.points[draft.points.length - 1]!;
      if (draft.points.length < MAX_POINTS && Math.hypot(p[0] - last[0], p[1] - last[1]) > 0.002) {
        setDraft({ ...draft, points: [...draft.points, [round(p[0]), round(p[1])]] });
      }
    } else {
      setDraft(shapeBetween(start.current, p));
    }
  }
  function onPointerUp(e: PointerEvent<SVGSVGElement>) {
    const from = start.current;
    start.current = null;
    if (!from || !draft) return;
    setDraft(null);
    const to = pointAt(e);
    const long = draft.type === 'path' ? draft.points.length >= 2 : Math.hypot(to[0] - from[0], to[1] - from[1]) >= MIN_DRAG;
    if (!long) return;
    const next = [...shapes, draft];
    change(next, `${TOOLS.find(([t]) => t === tool)![1]} drawn. ${describe(next)}`);
  }

  async function save(currentEtag: string | null) {
    setStale(false);
    await action.run(async () => onSaved(await photosApi.saveAnnotations(photo.id, shapes, currentEtag)), (err) => {
      if (err instanceof ApiProblem && err.status === 412) setStale(true);
      else action.setError(err);
    });
  }
  async function saveOverTheirs() {
    try {
      const latest = await photosApi.photo(photo.id);
      await save(latest.etag);
    } catch (err) {
      action.setError(err);
    }
  }
  function onKeyDown(e: KeyboardEvent) {
    if (!(e.ctrlKey || e.metaKey) || e.key.toLowerCase() !== 'z' || (e.target as HTMLElement).tagName === 'INPUT') return;
    e.preventDefault();
    if (e.shiftKey) redo();
    else undo();
  }

  const shown = draft ? [...shapes, draft] : shapes;
  return (
    <section className="annotate" aria-label="Annotate the photo" onKeyDown={onKeyDown}>
      <div className="annotate-tools">
        <fieldset>
          <legend>Tool</legend>
          {TOOLS.map(([value, label]) => (
            <label key={value} className="choice">
              <input type="radio" name={`${ids}-tool`} value={value} checked={tool === value} onChange={() => setTool(value)} />
              {label}
            </label>
          ))}
        </fieldset>
        <fieldset>
          <legend>Colour</legend>
          {COLOURS.map(([value, label]) => (
            <label key={value} className="choice">
              <input type="radio" name={`${ids}-colour`} value={value} checked={color === value} onChange={() => setColor(value)} />
              <span className="swatch" style={{ background: value }} aria-hidden="true" />
              {label}
            </label>
          ))}
        </fieldset>
        <fieldset>
          <legend>Line width</legend>
          {WIDTHS.map(([name]) => (
            <label key={name} className="choice">
              <input type="radio" name={`${ids}-width`} value={name} checked={widthName === name} onChange={() => setWidthName(name)} />
              {name}
            </label>
          ))}
        </fieldset>
        {tool === 'text'
          ? (
            <div className="annotate-text">
              <label htmlFor={`${ids}-text`}>Text to place</label>
              <p className="hint" id={`${ids}-text-hint`}>Then tap the photo where the text starts, or place it at the centre.</p>
              <input id={`${ids}-text`} aria-describedby={`${ids}-text-hint`} value={text} maxLength={500} onChange={(e) => setText(e.target.value)} />
              <button type="button" onClick={() => placeText(0.5, 0.5)}>Place text at the centre</button>
            </div>
          )
          : <p className="hint">Drag on the photo to draw (mouse, pen or finger).</p>}
      </div>
      <div className="photo-frame">
        <img src={src} alt={alt} draggable={false} />
        <svg
          className="annotation-layer drawing" viewBox={`0 0 ${width} ${height}`} preserveAspectRatio="none"
          role="img" aria-label={`Drawing area: ${describeShapes(shown)}`}
          onPointerDown={onPointerDown} onPointerMove={onPointerMove} onPointerUp={onPointerUp}
          onPointerCancel={() => { start.current = null; setDraft(null); }}
        >
          <ShapeElements shapes={shown} width={width} height={height} />
        </svg>
      </div>
      <p role="status" className="muted">{notice ?? describe(shapes)}</p>
      {stale
        ? (
          <div className="error" role="alert">
            <strong>Someone else changed this photo since you opened it.</strong>
            <span> Nothing was saved. Save your drawing over their version, or cancel to see theirs. </span>
            <button type="button" disabled={action.busy} onClick={saveOverTheirs}>Save mine anyway</button>
          </div>
        )
        : null}
      {action.error ? <ErrorMessage error={action.error} /> : null}
      <div className="form-actions">
        <button type="button" onClick={undo} disabled={history.length === 0}>Undo</button>
        <button type="button" onClick={redo} disabled={undone.length === 0}>Redo</button>
        <button type="button" onClick={() => change([], 'Cleared. Save to remove every shape.')} disabled={shapes.length === 0}>Clear</button>
        <button type="button" onClick={() => save(etag)} disabled={action.busy}>{action.busy ? 'Saving…' : 'Save annotations'}</button>
        <button type="button" className="secondary" onClick={onCancel}>Cancel</button>
      </div>
    </section>
  );
}
