import type { Shape } from './photosApi.ts';

/**
 * Annotation shapes as SVG elements on a `width` × `height` canvas (the photo's pixels). The same
 * geometry as the server's `annotated` variant (annotationsSvg in photos.annotations.ts): positions
 * are 0..1 of the photo, stroke widths and text sizes fractions of its longest side.
 */
export function ShapeElements({ shapes, width, height }: { shapes: readonly Shape[]; width: number; height: number }) {
  const side = Math.max(width, height);
  const stroke = (w: number) => Math.max(1, w * side);
  return (
    <>
      {shapes.map((s, i) => {
        switch (s.type) {
          case 'line':
          case 'arrow': {
            const x1 = s.x1 * width, y1 = s.y1 * height, x2 = s.x2 * width, y2 = s.y2 * height;
            const w = stroke(s.width);
            const line = <line x1={x1} y1={y1} x2={x2} y2={y2} stroke={s.color} strokeWidth={w} strokeLinecap="round" />;
            if (s.type === 'line') return <g key={i} data-shape="line">{line}</g>;
            const len = Math.hypot(x2 - x1, y2 - y1);
            if (len === 0) return <g key={i} data-shape="arrow">{line}</g>;
            const head = Math.min(Math.max(w * 4, 8), len);
            const ux = (x2 - x1) / len, uy = (y2 - y1) / len;
            const bx = x2 - ux * head, by = y2 - uy * head;
            const px = -uy * head * 0.5, py = ux * head * 0.5;
            return (
              <g key={i} data-shape="arrow">
                {line}
                <polygon points={`${x2},${y2} ${bx + px},${by + py} ${bx - px},${by - py}`} fill={s.color} />
              </g>
            );
          }
          case 'rectangle':
            return <rect key={i} data-shape="rectangle" x={s.x * width} y={s.y * height} width={s.w * width} height={s.h * height} fill="none" stroke={s.color} strokeWidth={stroke(s.width)} />;
          case 'ellipse':
            return (
              <ellipse
                key={i} data-shape="ellipse" cx={(s.x + s.w / 2) * width} cy={(s.y + s.h / 2) * height} rx={(s.w / 2) * width} ry={(s.h / 2) * height}
                fill="none" stroke={s.color} strokeWidth={stroke(s.width)}
              />
            );
          case 'path':
            return (
              <polyline
                key={i} data-shape="path" points={s.points.map(([x, y]) => `${x * width},${y * height}`).join(' ')}
                fill="none" stroke={s.color} strokeWidth={stroke(s.width)} strokeLinecap="round" strokeLinejoin="round"
              />
            );
          case 'text':
            return (
              <text key={i} data-shape="text" x={s.x * width} y={s.y * height} fill={s.color} fontFamily="sans-serif" fontSize={Math.max(1, s.size * side)} xmlSpace="preserve">
                {s.text}
              </text>
            );
        }
      })}
    </>
  );
}

const NAMES: Record<Shape['type'], [string, string]> = {
  arrow: ['arrow', 'arrows'], line: ['line', 'lines'], rectangle: ['rectangle', 'rectangles'],
  ellipse: ['ellipse', 'ellipses'], path: ['freehand line', 'freehand lines'], text: ['text', 'texts'],
};

/** "2 arrows, 1 text" — the shapes in words, for a label or a status line. */
export function describeShapes(shapes: readonly Shape[]): string {
  if (shapes.length === 0) return 'no shapes';
  const counts = new Map<Shape['type'], number>();
  for (const s of shapes) counts.set(s.type, (counts.get(s.type) ?? 0) + 1);
  return [...counts].map(([type, n]) => `${n} ${NAMES[type][n === 1 ? 0 : 1]}`).join(', ');
}

/** The saved annotations over the photo (not editable): scales with the image it covers. */
export function AnnotationOverlay({ shapes, width, height }: { shapes: readonly Shape[]; width: number; height: number }) {
  if (shapes.length === 0) return null;
  return (
    <svg className="annotation-layer" viewBox={`0 0 ${width} ${height}`} preserveAspectRatio="none" role="img" aria-label={`Annotations: ${describeShapes(shapes)}`}>
      <ShapeElements shapes={shapes} width={width} height={height} />
    </svg>
  );
}
