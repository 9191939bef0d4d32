import { KeyTable } from '../../../lib/key-table';
import { TextList } from '../../../lib/text-list';
import { TimeSlices } from '../../../lib/yield';
import { sortNameOf } from './tree/keys';

/**
 * A batch's new contacts as numbers by index: what the parents' rule (parent-rules.ts) and the
 * forest writer need of each, without an object a contact. An import's 100,000 new contacts
 * are made as objects a chunk at a time (contact-batch.ts) and noted here as they pass.
 */

/** Where a new contact goes (`NewPlaces.kind`): at the top, under a contact of the directory, under another new contact, under a service number no new contact holds. */
export const TOP = 1;
export const UNDER_CONTACT = 2;
export const UNDER_NEW = 3;
export const UNDER_UNKNOWN = 4;

/** A new contact as the places note it. */
export interface Placeable {
  ref: number;
  contact: { service_no: string; name?: string; unit_id?: number; organization_id?: number };
  parent: { id: number } | { serviceNo: string } | null;
}

export class NewPlaces {
  readonly count: number;
  /** the caller's name of each (an import's row number) */
  readonly ref: Float64Array;
  /** ids, 0 where none is given (no row has id 0) */
  readonly unit: Uint32Array;
  readonly organization: Uint32Array;
  readonly kind: Uint8Array;
  /** the parent: a contact's id (UNDER_CONTACT) or a new contact's index (UNDER_NEW, once `resolve` ran) */
  readonly parent: Float64Array;
  private readonly serviceNos: TextList;
  private readonly sortNames: TextList;
  /** the parents' service numbers (UNDER_NEW) until `resolve`, '' for the others */
  private parentNos: TextList | null;
  private readonly bySn: KeyTable;

  constructor(count: number) {
    this.count = count;
    this.ref = new Float64Array(count);
    this.unit = new Uint32Array(count);
    this.organization = new Uint32Array(count);
    this.kind = new Uint8Array(count);
    this.parent = new Float64Array(count);
    this.serviceNos = new TextList(count);
    this.sortNames = new TextList(count);
    this.parentNos = new TextList(count);
    this.bySn = new KeyTable(count, (i) => this.serviceNos.get(i));
  }

  /** Notes the next new contact (they come in order, from index 0). */
  note(c: Placeable): void {
    const k = this.serviceNos.length;
    this.ref[k] = c.ref;
    this.unit[k] = c.contact.unit_id ?? 0;
    this.organization[k] = c.contact.organization_id ?? 0;
    this.serviceNos.push(c.contact.service_no);
    this.sortNames.push(sortNameOf(c.contact.name ?? ''));
    const p = c.parent;
    this.kind[k] = p === null ? TOP : 'id' in p ? UNDER_CONTACT : UNDER_NEW;
    this.parent[k] = p !== null && 'id' in p ? p.id : 0;
    this.parentNos!.push(p !== null && 'serviceNo' in p ? p.serviceNo : '');
    // a service number given twice names the last new contact that holds it, as a Map would
    this.bySn.put(c.contact.service_no, k);
  }

  /**
   * Finds each parent given by service number among the new contacts, once every one is noted:
   * some 60 ms for an import's 100,000, in slices that let other requests run.
   */
  async resolve(): Promise<void> {
    const parentNos = this.parentNos!;
    const slices = new TimeSlices();
    for (let k = 0; k < this.count; k++) {
      if (slices.due()) await slices.pause();
      if (this.kind[k] !== UNDER_NEW) continue;
      const at = this.bySn.get(parentNos.get(k));
      if (at === undefined) this.kind[k] = UNDER_UNKNOWN;
      else this.parent[k] = at;
    }
    this.parentNos = null;
  }

  /** The index of the new contact with this service number. */
  indexOf(serviceNo: string): number | undefined {
    return this.bySn.get(serviceNo);
  }

  serviceNo(k: number): string {
    return this.serviceNos.get(k);
  }

  sortName(k: number): string {
    return this.sortNames.get(k);
  }

  /** The order of siblings: by sort name, then as given. */
  siblingOrder = (a: number, b: number): number => this.sortNames.compare(a, b) || a - b;
}

/** The ids of a batch's new contacts (0 until written), by index, and by service number. */
export class NewIds {
  readonly ids: Float64Array;

  constructor(private readonly places: NewPlaces) {
    this.ids = new Float64Array(places.count);
  }

  get size(): number {
    return this.places.count;
  }

  get(serviceNo: string): number | undefined {
    const k = this.places.indexOf(serviceNo);
    return k === undefined ? undefined : this.ids[k];
  }

  values(): IterableIterator<number> {
    return this.ids.values();
  }
}
