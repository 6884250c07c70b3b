import { Type, type Static } from '@sinclair/typebox';

/**
 * Annotation shapes drawn over a photo, stored as vectors and rendered into the `annotated`
 * variant. Geometry is relative to the photo as displayed (after EXIF orientation): x runs
 * 0 (left) to 1 (right), y runs 0 (top) to 1 (bottom), so a drawing made on a thumbnail lines
 * up on every variant. Stroke `width` and text `size` are relative too — fractions of the
 * image's LONGEST side (0.005 on a 2048 px image is a ~10 px stroke) — so they scale with the
 * variant instead of being thin on the large image and fat on the thumbnail.
 */
export const MAX_SHAPES = 500;
export const MAX_PATH_POINTS = 10_000;
export const MAX_TEXT_LENGTH = 500;

const Rel = Type.Number({ minimum: 0, maximum: 1 });
const Extent = Type.Number({ minimum: 0, maximum: 1 });
const Color = Type.String({ pattern: '^#[0-9a-fA-F]{6}$', description: '`#rrggbb`.' });
const StrokeWidth = Type.Number({
  exclusiveMinimum: 0, maximum: 0.2,
  description: 'Stroke width as a fraction of the image\'s longest side (0.005 ≈ 10 px on a 2048 px image).',
});
// Two numbers of one kind: an array of exactly two, not a tuple (`items: [...]` is not valid OpenAPI 3.1 / JSON Schema 2020-12).
const Point = Type.Unsafe<[number, number]>(Type.Array(Rel, { minItems: 2, maxItems: 2, description: '[x, y], each 0..1.' }));
const stroke = { color: Color, width: StrokeWidth };

export const ArrowShape = Type.Object({
  type: Type.Literal('arrow'), x1: Rel, y1: Rel, x2: Rel, y2: Rel, ...stroke,
}, { additionalProperties: false, description: 'From (x1, y1) with the head at (x2, y2).' });
export const LineShape = Type.Object({
  type: Type.Literal('line'), x1: Rel, y1: Rel, x2: Rel, y2: Rel, ...stroke,
}, { additionalProperties: false });
export const RectangleShape = Type.Object({
  type: Type.Literal('rectangle'), x: Rel, y: Rel, w: Extent, h: Extent, ...stroke,
}, { additionalProperties: false, description: 'Outline; (x, y) is the top-left corner, w and h the size.' });
export const EllipseShape = Type.Object({
  type: Type.Literal('ellipse'), x: Rel, y: Rel, w: Extent, h: Extent, ...stroke,
}, { additionalProperties: false, description: 'Outline of the ellipse inscribed in the box (x, y, w, h).' });
export const PathShape = Type.Object({
  type: Type.Literal('path'),
  points: Type.Array(Point, { minItems: 2, maxItems: MAX_PATH_POINTS }),
  ...stroke,
}, { additionalProperties: false, description: 'Freehand polyline.' });
export const TextShape = Type.Object({
  type: Type.Literal('text'), x: Rel, y: Rel,
  text: Type.String({ minLength: 1, maxLength: MAX_TEXT_LENGTH, pattern: '^[^\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F]*$' }),
  color: Color,
  size: Type.Number({
    exclusiveMinimum: 0, maximum: 0.5,
    description: 'Font size as a fraction of the image\'s longest side. (x, y) is the left end of the baseline.',
  }),
}, { additionalProperties: false });

export const AnnotationShape = Type.Union([ArrowShape, LineShape, RectangleShape, EllipseShape, PathShape, TextShape]);
export type AnnotationShape = Static<typeof AnnotationShape>;

export const AnnotationShapes = Type.Object({
  shapes: Type.Array(AnnotationShape, { maxItems: MAX_SHAPES }),
}, { additionalProperties: false, title: 'AnnotationShapes' });
export type AnnotationShapes = Static<typeof AnnotationShapes>;

/** Escapes text for SVG character data and attribute values. */
export function escapeXml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!);
}

function n(v: number): string {
  return Number.isInteger(v) ? String(v) : v.toFixed(2);
}

/** The SVG overlay for `shapes` on a `width` × `height` image (pixels, oriented). */
export function annotationsSvg(shapes: readonly AnnotationShape[], width: number, height: number): string {
  const side = Math.max(width, height);
  const parts: string[] = [];
  const sw = (w: number) => n(Math.max(1, w * side));
  for (const s of shapes) {
    const color = escapeXml(s.color.toLowerCase());
    switch (s.type) {
      case 'line':
      case 'arrow': {
        const x1 = s.x1 * width, y1 = s.y1 * height, x2 = s.x2 * width, y2 = s.y2 * height;
        const w = Math.max(1, s.width * side);
        parts.push(`<line x1="${n(x1)}" y1="${n(y1)}" x2="${n(x2)}" y2="${n(y2)}" stroke="${color}" stroke-width="${n(w)}" stroke-linecap="round"/>`);
        if (s.type === 'arrow') {
          const len = Math.hypot(x2 - x1, y2 - y1);
          if (len > 0) {
            const head = Math.min(Math.max(w * 4, 8), len);
            const ux = (x2 - x1) / len, uy = (y2 - y1) / len;
            const bx = x2 - ux * head, by = y2 - uy * head;
            const px = -uy * head * 0.5, py = ux * head * 0.5;
            parts.push(`<polygon points="${n(x2)},${n(y2)} ${n(bx + px)},${n(by + py)} ${n(bx - px)},${n(by - py)}" fill="${color}"/>`);
          }
        }
        break;
      }
      case 'rectangle':
        parts.push(`<rect x="${n(s.x * width)}" y="${n(s.y * height)}" width="${n(s.w * width)}" height="${n(s.h * height)}" fill="none" stroke="${color}" stroke-width="${sw(s.width)}"/>`);
        break;
      case 'ellipse':
        parts.push(`<ellipse cx="${n((s.x + s.w / 2) * width)}" cy="${n((s.y + s.h / 2) * height)}" rx="${n((s.w / 2) * width)}" ry="${n((s.h / 2) * height)}" fill="none" stroke="${color}" stroke-width="${sw(s.width)}"/>`);
        break;
      case 'path':
        parts.push(`<polyline points="${s.points.map(([x, y]) => `${n(x * width)},${n(y * height)}`).join(' ')}" fill="none" stroke="${color}" stroke-width="${sw(s.width)}" stroke-linecap="round" stroke-linejoin="round"/>`);
        break;
      case 'text':
        parts.push(`<text x="${n(s.x * width)}" y="${n(s.y * height)}" fill="${color}" font-family="sans-serif" font-size="${n(Math.max(1, s.size * side))}" xml:space="preserve">${escapeXml(s.text)}</text>`);
        break;
    }
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">${parts.join('')}</svg>`;
}
