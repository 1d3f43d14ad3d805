import {
  addUses,
  buildSnapshotOn,
  type CapacityUse,
  defaultEngineOptions,
  evaluate,
  type Snapshot,
  UsageBoard,
  usesOfDispatch
} from "@retail/capacity"
import { decodeDeliveryRequestA, engineRequestOfA } from "@retail/capacity-wire"
import { Result } from "effect"
import { demoDocument } from "./CapacityInProcess.ts"

/**
 * The demo network on a usage board, as the capacity service's actors keep it: an order replaces
 * the usage maps it takes from, and the plans that read them are made again. In-process answers on
 * `snapshot` then cost what they cost beside orders, which answers on a fixed ledger do not show.
 */
export interface LiveDemo {
  readonly snapshot: Snapshot
  /** Takes what one order takes (its uses), as an applied consumption does. */
  readonly take: (uses: ReadonlyArray<CapacityUse>) => void
  /** Gives back everything taken: every day's usage as it started (0). */
  readonly releaseAll: () => void
}

export const liveDemo = (): LiveDemo => {
  const board = new UsageBoard()
  const snapshot = buildSnapshotOn(demoDocument(), board.cellOf)
  let taken: Array<CapacityUse> = []
  return {
    snapshot,
    take: (uses) => {
      addUses(board, uses, 1)
      taken.push(...uses)
    },
    releaseAll: () => {
      addUses(board, taken, -1)
      taken = []
    }
  }
}

/**
 * What an order on each variant A body takes, as the benchmark's orders are placed: its first
 * planned dispatch, on its first delivery date and window, all its units. Bodies with no planned
 * dispatch give none.
 */
export const ordersOfBodies = (snapshot: Snapshot, bodies: ReadonlyArray<string>, epochMillis = Date.now()): ReadonlyArray<ReadonlyArray<CapacityUse>> =>
  bodies.flatMap((body) => {
    const request = decodeDeliveryRequestA(JSON.parse(body))
    if (Result.isFailure(request)) return []
    const evaluation = evaluate(snapshot, engineRequestOfA(request.success), epochMillis, defaultEngineOptions)
    const dispatch = evaluation.dispatches.find((d) => d.status === "PLANNED")
    const first = dispatch?.deliveries[0]
    if (dispatch === undefined || first === undefined) return []
    return [usesOfDispatch(dispatch, { date: first.date, window: first.windows[0]?.window.code ?? "" })]
  })
