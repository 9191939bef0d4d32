import type { AuthContext } from '../modules/access';

declare global {
  namespace Express {
    interface Request {
      /** the request id (X-Request-Id), set by the request log */
      id?: string;
      /** the signed-in caller, set by the authenticate middleware */
      auth?: AuthContext;
      /** the validated and sanitized input (matchedData), set by the validate middleware */
      input?: Record<string, unknown>;
      /** the rules' name of a parameter sent under its other name, and that name (lib/http/aliases.ts) */
      aliased?: Record<string, string>;
    }
  }
}

export {};
