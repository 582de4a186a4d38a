/**
 * `npm run user:token -- --email … [--days 30]`: a new personal token for an existing user, with
 * every scope of its kind and no limits (tokens never outlive the token that makes them, so this
 * is how a user whose tokens all ran out gets back in). Same table choice as `user:create`.
 */
import { parseArgs } from 'node:util';
import { withOperatorTable } from './operator-table.ts';

const { values } = parseArgs({
  options: {
    email: { type: 'string' },
    days: { type: 'string', default: '30' },
    table: { type: 'string' },
  },
});

const usage = 'usage: npm run user:token -- --email ada@example.com [--days 30] [--table <aws table>]';

const main = async () => {
  const { email } = values;
  if (!email) throw new Error(usage);
  await withOperatorTable(values.table, async () => {
    const { issueOperatorToken } = await import('#shared/users/users.ts');
    const issued = await issueOperatorToken(email, Number(values.days));
    console.log(`User  ${issued.user.id} ${issued.user.email}${issued.isAdmin ? ' (instance admin)' : ''}`);
    console.log(`Token  ${issued.token}  (until ${issued.expiredTime})`);
  });
};

main().catch((error) => {
  console.error((error as Error).message);
  process.exit(1);
});
