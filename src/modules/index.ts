import type { App } from '../app-types.js';
import type { Services } from '../services.js';
import { analyticsRoutes } from './analytics/routes.js';
import { apiKeyRoutes } from './api-keys/routes.js';
import { brandingRoutes } from './branding/routes.js';
import { candidateRoutes } from './candidates/routes.js';
import { catalogueRoutes } from './catalogues/routes.js';
import { memberRoutes } from './members/routes.js';
import { metaRoutes } from './meta/routes.js';
import { usageRoutes } from './usage/routes.js';

/** Every API area, each registering its own routes with the services it needs. */
export function registerModules(app: App, services: Services): void {
  const { core } = services;
  metaRoutes(app, core.db);
  usageRoutes(app, services);
  apiKeyRoutes(app, services.apiKeys);
  brandingRoutes(app, core);
  memberRoutes(app, services.organizationRepo);
  analyticsRoutes(app, core);
  catalogueRoutes(app, core);
  candidateRoutes(app, core);
}
