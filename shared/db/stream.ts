/**
 * Records of the table's change stream, in the wire format both readers receive (a Lambda's
 * DynamoDB stream event and `GetRecords` of DynamoDB Streams), turned into plain data for the
 * capture: images unmarshalled as the document client reads items.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { Item } from './client.ts';

/** A stream record as both readers give it (only what the capture reads). */
export interface WireStreamRecord {
  eventID?: string;
  eventName?: string;
  dynamodb?: {
    ApproximateCreationDateTime?: number | Date;
    SequenceNumber?: string;
    OldImage?: Record<string, AttributeValue>;
    NewImage?: Record<string, AttributeValue>;
  };
}

/** A stream record as plain data. */
export interface StreamRecord {
  eventId: string;
  sequence: string;
  kind: 'INSERT' | 'MODIFY' | 'REMOVE';
  at: string;
  oldImage?: Item;
  newImage?: Item;
}

const image = (value: Record<string, AttributeValue> | undefined): Item | undefined =>
  // the same number reading as the document client (`client.ts`)
  value ? (unmarshall(value, { wrapNumbers: (text: string) => Number(text) }) as Item) : undefined;

/** When a stream record's write happened: epoch seconds in a Lambda event, a Date from GetRecords. */
const atOf = (value: number | Date | undefined): string => {
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'number') return new Date(value * 1000).toISOString();
  return new Date().toISOString();
};

/** The plain form of a wire stream record; undefined for one without an id or a known kind. */
export const streamRecordOf = (record: WireStreamRecord): StreamRecord | undefined => {
  const kind = record.eventName;
  if (!record.eventID || (kind !== 'INSERT' && kind !== 'MODIFY' && kind !== 'REMOVE')) return undefined;
  const oldImage = image(record.dynamodb?.OldImage);
  const newImage = image(record.dynamodb?.NewImage);
  return {
    eventId: record.eventID,
    sequence: record.dynamodb?.SequenceNumber ?? '',
    kind,
    at: atOf(record.dynamodb?.ApproximateCreationDateTime),
    ...(oldImage ? { oldImage } : {}),
    ...(newImage ? { newImage } : {}),
  };
};
