package dev.fencedlock.faults.report;

import dev.fencedlock.faults.history.CheckReport;
import java.util.Objects;

/**
 * One row of the fault matrix in {@code docs/guarantees.md} ("What is tested"): what one fault scenario ran and what
 * the checker found.
 *
 * @param id a short stable id, also the fragment's file name
 * @param fault what was injected
 * @param backend {@code redlock}, {@code zookeeper} or {@code -}
 * @param rounds how many times the fault was injected
 * @param sections critical sections recorded
 * @param overlaps pairs of sections of one lock that overlapped
 * @param unsafeOverlaps overlaps in which both holders believed their lease valid at one instant
 * @param lostLeases sections that learned their lease was lost
 * @param staleRefused writes the fence refused
 * @param staleAccepted stale writes the database accepted
 * @param lostUpdates committed increments the counter does not reflect
 * @param control what the unfenced control counter showed, or {@code -}
 * @param notes anything else the row needs, e.g. refusal reasons
 */
public record MatrixRow(
        String id,
        String fault,
        String backend,
        long rounds,
        long sections,
        long overlaps,
        long unsafeOverlaps,
        long lostLeases,
        long staleRefused,
        long staleAccepted,
        long lostUpdates,
        String control,
        String notes) {

    public MatrixRow {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(fault, "fault");
        Objects.requireNonNull(backend, "backend");
        Objects.requireNonNull(control, "control");
        Objects.requireNonNull(notes, "notes");
    }

    /** A row with the counts of {@code report}. */
    public static MatrixRow of(
            String id, String fault, String backend, long rounds, CheckReport report, String control, String notes) {
        return new MatrixRow(
                id,
                fault,
                backend,
                rounds,
                report.sections(),
                report.overlaps().size(),
                report.unsafeOverlaps().size(),
                report.lostSections(),
                report.writesRefused(),
                report.staleAccepted(),
                report.lostUpdates(),
                control,
                notes);
    }
}
