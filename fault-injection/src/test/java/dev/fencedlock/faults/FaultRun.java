package dev.fencedlock.faults;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencedlock.faults.history.CheckReport;
import dev.fencedlock.faults.history.CounterState;
import dev.fencedlock.faults.history.History;
import dev.fencedlock.faults.history.HistoryChecker;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** What every scenario shares: how many rounds to run, and the checks no fault may break. */
final class FaultRun {
    private static final Logger log = LoggerFactory.getLogger(FaultRun.class);

    private FaultRun() {}

    /**
     * {@code base} rounds times the system property {@code faults.rounds} (1 by default, 10 in the
     * {@code soak} profile).
     */
    static int rounds(int base) {
        return base * Integer.getInteger("faults.rounds", 1);
    }

    /**
     * Checks {@code history} against the counters and asserts what no fault may cause while the
     * fence works: token inversions, lost updates, stale writes accepted (see {@link
     * dev.fencedlock.faults.history.CheckReport#violations()}).
     */
    static CheckReport check(String scenario, History history, List<CounterState> counters) {
        CheckReport report = HistoryChecker.check(history, counters);
        log.info("{}: {}", scenario, report.summary());
        report.overlaps().stream()
                .limit(10)
                .forEach(pair -> log.info(
                        "{}: overlap {} (both valid: {}, announced loss: {})",
                        scenario,
                        pair,
                        pair.bothBelievedValid(),
                        pair.explainedByLoss()));
        if (report.overlaps().size() > 10) {
            log.info("{}: {} more overlaps", scenario, report.overlaps().size() - 10);
        }
        assertThat(report.violations()).as("%s: %s", scenario, report.summary()).isEmpty();
        return report;
    }

    /** Asserts that no two holders overlapped unless one of them learned its lease was lost. */
    static void assertNoOverlapWithoutLoss(String scenario, CheckReport report) {
        assertThat(report.overlapsWithoutLoss())
                .as("%s: overlapping holders neither of which was told of a loss", scenario)
                .isEmpty();
    }

    /** Asserts that no two holders ever believed their leases valid at one instant. */
    static void assertNoUnsafeOverlap(String scenario, CheckReport report) {
        assertThat(report.unsafeOverlaps())
                .as("%s: holders that both believed their lease valid at one instant", scenario)
                .isEmpty();
    }
}
