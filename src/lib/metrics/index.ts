/** Prometheus metrics of one app: requests by route pattern, the database pool, the search index, the process. */
export { Metrics, UNMATCHED, type IndexBuildReport } from './metrics';
export { metricsEndpoint, type MetricsSettings } from './metrics-endpoint';
