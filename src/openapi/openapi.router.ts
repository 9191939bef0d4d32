import { Router } from 'express';
import swaggerUi from 'swagger-ui-express';
import { openApiDocument } from './document';

/** GET /api/openapi.json (the document) and GET /api/docs (Swagger UI, served from npm's swagger-ui-dist). */
export function openApiRouter(): Router {
  const document = openApiDocument();
  // each operation shows its operationId: the name of the call in the generated client (clients/typescript)
  const swaggerOptions = { persistAuthorization: true, validatorUrl: null, displayOperationId: true };
  const router = Router();
  router.get('/openapi.json', (_req, res) => {
    res.json(document);
  });
  router.use('/docs', swaggerUi.serveFiles(document, { swaggerOptions }));
  router.get('/docs', swaggerUi.setup(document, { customSiteTitle: 'Directory Service API', swaggerOptions }));
  return router;
}
