import { Router } from 'express';
import swaggerUi from 'swagger-ui-express';
import { openApiDocument } from './document';

/** GET /api/openapi.json (the document) and GET /api/docs (Swagger UI, served from npm's swagger-ui-dist). */
export function openApiRouter(): Router {
  const document = openApiDocument();
  const router = Router();
  router.get('/openapi.json', (_req, res) => {
    res.json(document);
  });
  router.use('/docs', swaggerUi.serveFiles(document, { swaggerOptions: { persistAuthorization: true, validatorUrl: null } }));
  router.get('/docs', swaggerUi.setup(document, { customSiteTitle: 'Directory Service API', swaggerOptions: { persistAuthorization: true, validatorUrl: null } }));
  return router;
}
