/**
 * `npm run user:create -- --name … --email … [--admin]`: creates a user and prints its token.
 * Against AWS: pass `--table <name>` (or TABLE_NAME) with AWS credentials and region in the
 * environment; otherwise the local data folder (operator-table.ts).
 */
import { parseArgs } from 'node:util';
import { withOperatorTable } from './operator-table.ts';

const { values } = parseArgs({
  options: {
    name: { type: 'string' },
    email: { type: 'string' },
    admin: { type: 'boolean', default: false },
    table: { type: 'string' },
  },
});

const usage =
  'usage: npm run user:create -- --name "Ada" --email ada@example.com [--admin] [--table <aws table>]';

const main = async () => {
  const { name, email } = values;
  if (!name || !email) throw new Error(usage);
  await withOperatorTable(values.table, async () => {
    const { createUser } = await import('#shared/users/users.ts');
    const user = await createUser({ name, email, isAdmin: values.admin });
    console.log(`User  ${user.id} ${user.email}${user.isAdmin ? ' (instance admin)' : ''}`);
    console.log(`Token  ${user.token}`);
  });
};

main().catch((error) => {
  console.error((error as Error).message);
  process.exit(1);
});
