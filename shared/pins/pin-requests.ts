/** Request schemas of the pin routes, which name a pinned thing by its type and id (Teable's `addPinRoSchema`). */
import * as z from 'zod/mini';
import { querySingle } from '#shared/core/validation.ts';
import { PIN_TYPES, type PinType } from '#shared/entities/pins.ts';
import { idProblem } from '#shared/ids.ts';

const pinType = z.enum(PIN_TYPES);
/** An id of the type named beside it; `idOfType` checks the two together. */
const pinnedId = z.string().check(z.maxLength(64));

/** The id at `idKey` is an id of the type at `typeKey` (a base's for `base`): a 400 on the id otherwise. */
const idOfType = <T extends string, I extends string>(typeKey: T, idKey: I) =>
  z.superRefine((value: Record<T, PinType> & Record<I, string>, ctx) => {
    const problem = idProblem(value[typeKey], value[idKey]);
    if (problem) ctx.issues.push({ code: 'custom', path: [idKey], message: problem, input: value[idKey] });
  });

/** `POST /pin`: what to pin. */
export const addPinBody = z.object({ type: pinType, id: pinnedId }).check(idOfType('type', 'id'));

/** `DELETE /pin`: what to unpin, in the query (Teable's client sends it as `params`). */
export const deletePinQuery = z
  .object({ type: querySingle(pinType), id: querySingle(pinnedId) })
  .check(idOfType('type', 'id'));

/** `PUT /pin/order`: the pin to move, and the pin to put it before or after. */
export const updatePinOrderBody = z
  .object({
    id: pinnedId,
    type: pinType,
    anchorId: pinnedId,
    anchorType: pinType,
    position: z.enum(['before', 'after']),
  })
  .check(idOfType('type', 'id'), idOfType('anchorType', 'anchorId'));
