/**
 * The function table holds exactly the functions of computed.md section 2 (79), and the README
 * states that number.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FUNCTIONS } from '#shared/formula/functions/index.ts';

const CONTRACT =
  `SUM AVERAGE MAX MIN ROUND ROUNDUP ROUNDDOWN CEILING FLOOR EVEN ODD INT ABS SQRT EXP POWER LOG
MOD VALUE CONCATENATE FIND SEARCH MID LEFT RIGHT REPLACE REGEXP_REPLACE SUBSTITUTE LOWER UPPER TRIM
LEN REPT T ENCODE_URL_COMPONENT IF SWITCH AND OR XOR NOT BLANK ERROR IS_ERROR NOW TODAY YEAR MONTH
DAY HOUR MINUTE SECOND WEEKNUM WEEKDAY DATETIME_DIFF FROMNOW TONOW DATE_ADD WORKDAY WORKDAY_DIFF
IS_SAME IS_AFTER IS_BEFORE DATESTR TIMESTR DATETIME_FORMAT DATETIME_PARSE CREATED_TIME
LAST_MODIFIED_TIME COUNTALL COUNTA COUNT ARRAY_JOIN ARRAY_UNIQUE ARRAY_FLATTEN ARRAY_COMPACT
RECORD_ID AUTO_NUMBER TEXT_ALL`.split(/\s+/);

describe('the function table', () => {
  it('holds every function of the contract and nothing else', () => {
    expect([...FUNCTIONS.keys()].sort()).toEqual([...CONTRACT].sort());
  });

  it('each spec is named as it is keyed, with an evaluator', () => {
    for (const [name, spec] of FUNCTIONS) {
      expect(spec.name).toBe(name);
      expect(Boolean(spec.evaluate) || Boolean(spec.lazy), name).toBe(true);
    }
  });

  it('shared/README.md states how many there are', () => {
    const readme = readFileSync(new URL('../../../shared/README.md', import.meta.url), 'utf8');
    expect(readme).toContain(`All ${FUNCTIONS.size} functions of the contract are built`);
  });
});
