import type { FastifyInstance, RouteOptions } from 'fastify';

type RouteHookName = 'onRequest' | 'preValidation' | 'preHandler' | 'preSerialization' | 'onSend';

/**
 * Attaches a hook to the routes it applies to (decided once, when each route is declared)
 * rather than to every request: a convention that does nothing on most routes then costs
 * nothing there. Must be called before the routes are declared.
 */
export function addRouteHook(app: FastifyInstance, name: RouteHookName, applies: (route: RouteOptions) => boolean, hook: unknown): void {
  app.addHook('onRoute', (route) => {
    if (!applies(route)) return;
    const existing = route[name] as unknown;
    (route as unknown as Record<string, unknown>)[name] = existing ? [...[existing].flat(), hook] : [hook];
  });
}

export const methodsOf = (route: RouteOptions): string[] => [route.method].flat();
