/**
 * `npm run user:create -- --name … --email … [--admin] [--password <text> | --generate-password]`:
 * creates a user and prints its token, and with a password option one to sign in with (a
 * generated one is printed once and stored only as its hash). Against AWS: pass `--table <name>`
 * (or TABLE_NAME) with AWS credentials and region in the environment; otherwise the local data
 * folder (operator-table.ts).
 */
import { parseArgs } from 'node:util';
import { withOperatorTable } from './operator-table.ts';

const { values } = parseArgs({
  options: {
    name: { type: 'string' },
    email: { type: 'string' },
    admin: { type: 'boolean', default: false },
    password: { type: 'string' },
    'generate-password': { type: 'boolean', default: false },
    table: { type: 'string' },
  },
});

const usage =
  'usage: npm run user:create -- --name "Ada" --email ada@example.com [--admin] [--password <text> | --generate-password] [--table <aws table>]';

const main = async () => {
  const { name, email } = values;
  if (!name || !email) throw new Error(usage);
  const { PASSWORD_RULE, PASSWORD_RULE_MESSAGE } = await import('#shared/auth/passwords.ts');
  if (values.password !== undefined && !PASSWORD_RULE.test(values.password))
    throw new Error(`--password: at least 8 characters. ${PASSWORD_RULE_MESSAGE}`);
  await withOperatorTable(values.table, async () => {
    const { createUser } = await import('#shared/users/users.ts');
    const { addPassword, generatePassword } = await import('#shared/users/sessions.ts');
    const user = await createUser({ name, email, isAdmin: values.admin });
    const password = values.password ?? (values['generate-password'] ? generatePassword() : undefined);
    if (password !== undefined) await addPassword(user.id, password);
    console.log(`User  ${user.id} ${user.email}${user.isAdmin ? ' (instance admin)' : ''}`);
    console.log(`Token  ${user.token}`);
    if (values['generate-password'] && values.password === undefined)
      console.log(`Password  ${password} (shown once: only its hash is stored)`);
  });
};

main().catch((error) => {
  console.error((error as Error).message);
  process.exit(1);
});
