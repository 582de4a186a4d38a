/**
 * A writer to be killed: runs one route's handler in its own process, as a Lambda would, so an
 * integration test can SIGKILL it mid-write (`test/integration/interrupted-writes.test.ts`). The
 * environment (DynamoDB endpoint, table, keys) is inherited from the test process.
 * Arguments: the handler name and the call options as JSON.
 */
import { documentClient } from '#shared/db/client.ts';
import type { HandlerName } from '#shared/routes.ts';
import { call } from './invoke.ts';

// Every batch or transaction write takes this long: the test kills the process part-way, not after.
const stallMs = Number(process.env.CRASH_WRITER_STALL_MS ?? 0);
if (stallMs > 0)
  documentClient.middlewareStack.add(
    (next, context) => async (args) => {
      if (
        /^(TransactWriteItems|BatchWriteItem)Command$/.test(
          (context as { commandName?: string }).commandName ?? '',
        )
      )
        await new Promise((r) => setTimeout(r, stallMs));
      return next(args);
    },
    { step: 'initialize', name: 'crash-writer-stall' },
  );

const [name, options] = process.argv.slice(2);
const res = await call(name as HandlerName, JSON.parse(options ?? '{}'));
process.stdout.write(`${res.status}\n`);
