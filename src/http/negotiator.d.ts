/** The part of `negotiator` (jshttp; it ships no typings) that request-shape.ts uses. */
declare module 'negotiator' {
  export default class Negotiator {
    constructor(request: { headers: Record<string, string | string[] | undefined> });
    /** The `available` media types the Accept header allows, best first. */
    mediaTypes(available?: string[]): string[];
  }
}
