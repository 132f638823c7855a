import { Controller } from '@nestjs/common';
import { Reports, type ParsedRequestOf } from '@townhall/contracts';
import { Handle } from '@townhall/platform/service';
import { RecordPresence } from './record-presence.js';

/** Attendance's message handler: the gateways' snapshots of their open live streams. */
@Controller()
export class AttendanceHandler {
  constructor(private readonly snapshots: RecordPresence) {}

  /**
   * Sent by a gateway, unsigned (no caller: no agent asks it), as Events.access and Attendance.get
   * are between services: the bus's permissions (libs/contracts/src/bus-access.ts) let the gateway
   * send it, and no other service.
   */
  @Handle(Reports.presence)
  presence(data: ParsedRequestOf<typeof Reports.presence>) {
    return this.snapshots.record(data);
  }
}
