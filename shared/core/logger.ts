import { AsyncLocalStorage } from 'node:async_hooks';
import { LogFormatter, Logger, LogItem } from '@aws-lambda-powertools/logger';
import type { LogAttributes, UnformattedAttributes } from '@aws-lambda-powertools/logger/types';

/**
 * The keys every line of one unit of work carries (a request's route and ids, a background job's
 * name), kept in the async context rather than on the logger: one process serves many requests
 * at once locally (and a job outlives the request that started it), and keys appended to the
 * logger would show on the lines of whatever else runs meanwhile.
 */
const context = new AsyncLocalStorage<LogAttributes>();

/** Runs `work` with `keys` on every log line it writes, replacing the keys of the caller's context. */
export const withLogContext = <T>(keys: LogAttributes, work: () => T): T => context.run({ ...keys }, work);

/** The keys of the current unit of work (empty outside one). */
export const logContext = (): LogAttributes => ({ ...context.getStore() });

/** Powertools' line layout, with the current unit of work's keys after the standard ones. */
class ContextLogFormatter extends LogFormatter {
  formatAttributes(attributes: UnformattedAttributes, additional: LogAttributes): LogItem {
    return new LogItem({
      attributes: {
        level: attributes.logLevel,
        message: attributes.message,
        timestamp: this.formatTimestamp(attributes.timestamp),
        service: attributes.serviceName,
        cold_start: attributes.lambdaContext?.coldStart,
        function_arn: attributes.lambdaContext?.invokedFunctionArn,
        function_memory_size: attributes.lambdaContext?.memoryLimitInMB,
        function_name: attributes.lambdaContext?.functionName,
        function_request_id: attributes.lambdaContext?.awsRequestId,
        sampling_rate: attributes.sampleRateValue,
        xray_trace_id: attributes.xRayTraceId,
        ...context.getStore(),
      },
    }).addAttributes(additional);
  }
}

/** The structured JSON logger everything writes through (a request's or job's keys added per line). */
export const logger = new Logger({ serviceName: 'workspace-api', logFormatter: new ContextLogFormatter() });
