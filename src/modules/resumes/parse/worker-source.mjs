// Runs the TypeScript worker straight from src/ (tests, `vitest`): Node strips the types, and this hook maps the
// `.js` specifiers the sources use to their `.ts` files. The built service starts dist/…/worker.js instead.
import { registerHooks } from 'node:module';

registerHooks({
  resolve(specifier, context, nextResolve) {
    try {
      return nextResolve(specifier, context);
    } catch (error) {
      if (specifier.startsWith('.') && specifier.endsWith('.js')) return nextResolve(specifier.slice(0, -3) + '.ts', context);
      throw error;
    }
  },
});
await import('./worker.ts');
