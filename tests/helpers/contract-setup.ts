import { contractProblem, recordedResponses } from './openapi';

// After each test file: every response its apps sent must match the OpenAPI document.
afterAll(() => {
  const problems = [...new Set(recordedResponses().map(contractProblem).filter((p): p is string => p !== null))];
  if (problems.length > 0) {
    throw new Error(`${problems.length} responses do not match the OpenAPI document:\n${problems.slice(0, 30).join('\n')}`);
  }
});
