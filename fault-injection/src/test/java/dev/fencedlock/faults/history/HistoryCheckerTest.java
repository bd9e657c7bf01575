package dev.fencedlock.faults.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class HistoryCheckerTest {
    private static final String LOCK = "inventory:sku-42";

    /** A section held from {@code enter} to {@code exit}, seen valid until exit, acquire begun 1 before. */
    private static CriticalSection held(String client, long token, long enter, long exit) {
        return new CriticalSection(LOCK, client, token, enter - 1, enter, exit, exit, false);
    }

    private static CriticalSection section(
            String client, long token, long acquireStart, long enter, long lastValid, long exit, boolean lost) {
        return new CriticalSection(LOCK, client, token, acquireStart, enter, lastValid, exit, lost);
    }

    private static FencedWrite write(String attempt, long token, WriteOutcome outcome) {
        return new FencedWrite(LOCK, "c", attempt, token, outcome, outcome == WriteOutcome.OK ? "" : "ROW_CHANGED", 0);
    }

    private static CheckReport check(List<CriticalSection> sections) {
        return HistoryChecker.check(new History(sections, List.of()), List.of());
    }

    @Test
    void sequentialHoldersWithGrowingTokensAreClean() {
        CheckReport report = check(List.of(held("a", 10, 100, 200), held("b", 11, 200, 300), held("a", 12, 350, 400)));

        assertThat(report.overlaps()).isEmpty();
        assertThat(report.violations()).isEmpty();
        assertThat(report.sections()).isEqualTo(3);
    }

    @Test
    void intersectingSectionsAreAnOverlapInWhichBothBelievedValid() {
        CheckReport report = check(List.of(held("a", 10, 100, 300), held("b", 11, 200, 400)));

        assertThat(report.overlaps()).hasSize(1);
        assertThat(report.unsafeOverlaps()).hasSize(1);
        assertThat(report.overlapsWithoutLoss()).hasSize(1);
        assertThat(report.unsafeOverlapsWithoutLoss()).hasSize(1);
        assertThat(report.overlaps().get(0).first().client()).isEqualTo("a");
    }

    @Test
    void aHolderThatWasLastSeenValidBeforeTheNextEnteredOverlapsButNotUnsafely() {
        // a paused past its lease: last seen valid at 150, woke up and left at 300; b entered at 200
        CriticalSection paused = section("a", 10, 99, 100, 150, 300, true);
        CheckReport report = check(List.of(paused, held("b", 11, 200, 400)));

        assertThat(report.overlaps()).hasSize(1);
        assertThat(report.unsafeOverlaps()).isEmpty();
        assertThat(report.overlapsWithoutLoss()).isEmpty();
        assertThat(report.violations()).isEmpty();
    }

    @Test
    void aSectionNeverSeenValidCannotOverlapUnsafely() {
        CriticalSection neverValid = section("a", 10, 99, 100, 99, 300, true);
        CheckReport report = check(List.of(neverValid, held("b", 11, 200, 400)));

        assertThat(neverValid.everSeenValid()).isFalse();
        assertThat(report.overlaps()).hasSize(1);
        assertThat(report.unsafeOverlaps()).isEmpty();
    }

    @Test
    void unsafeOverlapWithAnAnnouncedLossIsExplained() {
        // both saw their lease valid at 250, but a's lease was later reported lost (an expired session)
        CriticalSection a = section("a", 10, 99, 100, 250, 300, true);
        CheckReport report = check(List.of(a, held("b", 11, 200, 400)));

        assertThat(report.unsafeOverlaps()).hasSize(1);
        assertThat(report.unsafeOverlapsWithoutLoss()).isEmpty();
    }

    @Test
    void sectionsThatOnlyTouchDoNotOverlap() {
        CheckReport report = check(List.of(held("a", 10, 100, 200), held("b", 11, 200, 300)));

        assertThat(report.overlaps()).isEmpty();
    }

    @Test
    void everyPairOfAThreeWayOverlapIsReported() {
        CheckReport report = check(List.of(held("a", 10, 100, 500), held("b", 11, 200, 600), held("c", 12, 300, 700)));

        assertThat(report.overlaps()).hasSize(3);
    }

    @Test
    void sectionsOfDifferentLocksNeverOverlapOrCompareTokens() {
        CriticalSection a = held("a", 10, 100, 300);
        CriticalSection other = new CriticalSection("other-lock", "b", 5, 150, 200, 400, 400, false);

        CheckReport report = check(List.of(a, other));

        assertThat(report.overlaps()).isEmpty();
        assertThat(report.tokenInversions()).isEmpty();
    }

    @Test
    void aSmallerTokenForAnAcquisitionBegunAfterAGrantIsAnInversion() {
        CriticalSection first = held("a", 12, 100, 200);
        CriticalSection second = section("b", 11, 150, 250, 300, 300, false);

        CheckReport report = check(List.of(first, second));

        assertThat(report.tokenInversions()).containsExactly(new SectionPair(first, second));
        assertThat(report.violations()).singleElement().asString().contains("token not increasing");
    }

    @Test
    void theSameTokenForALaterGrantIsAnInversionAndADuplicate() {
        CriticalSection first = held("a", 12, 100, 200);
        CriticalSection second = held("b", 12, 300, 400);

        CheckReport report = check(List.of(first, second));

        assertThat(report.tokenInversions()).hasSize(1);
        assertThat(report.duplicateTokens()).hasSize(1);
        assertThat(report.violations()).hasSize(2);
    }

    @Test
    void concurrentAcquisitionsMayGetTokensInEitherOrder() {
        // b began to acquire at 90, before a was granted at 100: b's smaller token is legitimate
        CriticalSection a = held("a", 12, 100, 200);
        CriticalSection b = section("b", 11, 90, 300, 400, 400, false);

        assertThat(check(List.of(a, b)).tokenInversions()).isEmpty();
    }

    @Test
    void theLargestEarlierTokenIsTheOneComparedWith() {
        CriticalSection big = held("a", 50, 100, 150);
        CriticalSection small = section("b", 20, 90, 160, 170, 170, false); // concurrent with big: fine
        CriticalSection later = held("c", 30, 300, 400); // above 20 but below 50: inversion

        CheckReport report = check(List.of(big, small, later));

        assertThat(report.tokenInversions()).containsExactly(new SectionPair(big, later));
    }

    @Test
    void concurrentGrantsWithOneTokenAreDuplicates() {
        CriticalSection a = section("a", 12, 10, 100, 200, 200, false);
        CriticalSection b = section("b", 12, 20, 150, 300, 300, false);

        CheckReport report = check(List.of(a, b));

        assertThat(report.duplicateTokens()).containsExactly(new SectionPair(a, b));
    }

    @Test
    void aCommitLogLongerThanTheCounterGrowthIsALostUpdate() {
        // two holders read 5 and both wrote 6: three increments committed, the counter grew by two
        History history = new History(
                List.of(),
                List.of(
                        write("w1", 10, WriteOutcome.OK),
                        write("w2", 11, WriteOutcome.OK),
                        write("w3", 12, WriteOutcome.OK)));
        CounterState state = new CounterState(
                LOCK,
                4,
                6,
                List.of(
                        new CommittedWrite("w1", 10, 5, 1),
                        new CommittedWrite("w2", 11, 6, 2),
                        new CommittedWrite("w3", 12, 6, 3)));

        CheckReport report = HistoryChecker.check(history, List.of(state));

        assertThat(report.lostUpdates()).isEqualTo(1);
        assertThat(report.violations()).anySatisfy(v -> assertThat(v).contains("1 lost update"));
    }

    @Test
    void aSmallerTokenCommittedAfterALargerOneIsAStaleWriteAccepted() {
        History history = new History(
                List.of(),
                List.of(
                        write("w1", 10, WriteOutcome.OK),
                        write("w2", 12, WriteOutcome.OK),
                        write("w3", 11, WriteOutcome.OK)));
        CounterState state = new CounterState(
                LOCK,
                0,
                3,
                List.of(
                        new CommittedWrite("w3", 11, 3, 7),
                        new CommittedWrite("w1", 10, 1, 5),
                        new CommittedWrite("w2", 12, 2, 6)));

        CheckReport report = HistoryChecker.check(history, List.of(state));

        assertThat(report.staleAccepted()).isEqualTo(1);
        assertThat(report.counters().get(0).staleAccepted()).containsExactly(new CommittedWrite("w3", 11, 3, 7));
        assertThat(report.lostUpdates()).isZero();
    }

    @Test
    void oneLeaseWritingTwiceWithItsTokenIsNotStale() {
        History history =
                new History(List.of(), List.of(write("w1", 10, WriteOutcome.OK), write("w2", 10, WriteOutcome.OK)));
        CounterState state = new CounterState(
                LOCK, 0, 2, List.of(new CommittedWrite("w1", 10, 1, 1), new CommittedWrite("w2", 10, 2, 2)));

        assertThat(HistoryChecker.check(history, List.of(state)).violations()).isEmpty();
    }

    @Test
    void writesOfUnknownOutcomeAreResolvedThroughTheCommitLog() {
        History history = new History(
                List.of(),
                List.of(
                        write("w1", 10, WriteOutcome.OK),
                        write("w2", 11, WriteOutcome.UNKNOWN),
                        write("w3", 12, WriteOutcome.UNKNOWN),
                        write("w4", 13, WriteOutcome.REFUSED_STALE)));
        CounterState state = new CounterState(
                LOCK, 0, 2, List.of(new CommittedWrite("w1", 10, 1, 1), new CommittedWrite("w3", 12, 2, 2)));

        CheckReport report = HistoryChecker.check(history, List.of(state));

        assertThat(report.violations()).isEmpty();
        assertThat(report.counters().get(0).unknownCommitted()).isEqualTo(1);
        assertThat(report.counters().get(0).unknownNotCommitted()).isEqualTo(1);
        assertThat(report.writesOk()).isEqualTo(1);
        assertThat(report.writesUnknown()).isEqualTo(2);
        assertThat(report.writesRefused()).isEqualTo(1);
        assertThat(report.refusalReasons()).containsEntry("ROW_CHANGED", 1L);
    }

    @Test
    void anAcknowledgedWriteMissingFromTheLogIsFlagged() {
        History history =
                new History(List.of(), List.of(write("w1", 10, WriteOutcome.OK), write("w2", 11, WriteOutcome.OK)));
        CounterState state = new CounterState(LOCK, 0, 1, List.of(new CommittedWrite("w1", 10, 1, 1)));

        CheckReport report = HistoryChecker.check(history, List.of(state));

        assertThat(report.counters().get(0).acknowledgedButMissing())
                .extracting(FencedWrite::attempt)
                .containsExactly("w2");
        assertThat(report.violations()).anySatisfy(v -> assertThat(v).contains("acknowledged write missing"));
    }

    @Test
    void aRefusedWriteFoundInTheLogIsFlagged() {
        History history = new History(List.of(), List.of(write("w1", 10, WriteOutcome.REFUSED_STALE)));
        CounterState state = new CounterState(LOCK, 0, 1, List.of(new CommittedWrite("w1", 10, 1, 1)));

        CheckReport report = HistoryChecker.check(history, List.of(state));

        assertThat(report.violations()).anySatisfy(v -> assertThat(v).contains("refused write committed"));
    }

    @Test
    void growthTheLogDoesNotExplainIsFlagged() {
        CounterState state = new CounterState(LOCK, 0, 2, List.of(new CommittedWrite("w1", 10, 1, 1)));

        CheckReport report = HistoryChecker.check(History.EMPTY, List.of(state));

        assertThat(report.counters().get(0).unexplainedIncrease()).isEqualTo(1);
        assertThat(report.violations()).anySatisfy(v -> assertThat(v).contains("only 1 increments committed"));
    }

    @Test
    void writesToOtherCountersAreCountedButNotCheckedAgainstThisOne() {
        FencedWrite elsewhere = new FencedWrite("control", "c", "x1", 10, WriteOutcome.OK, "", 0);
        CounterState state = new CounterState(LOCK, 0, 0, List.of());

        CheckReport report = HistoryChecker.check(new History(List.of(), List.of(elsewhere)), List.of(state));

        assertThat(report.violations()).isEmpty();
        assertThat(report.writesOk()).isEqualTo(1);
    }

    @Test
    void twoWritesWithOneAttemptIdAreRefused() {
        History history =
                new History(List.of(), List.of(write("w1", 10, WriteOutcome.OK), write("w1", 11, WriteOutcome.OK)));

        assertThatThrownBy(() -> HistoryChecker.check(history, List.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("w1");
    }

    @Test
    void sectionsOutOfOrderAreRefused() {
        assertThatThrownBy(() -> section("a", 1, 100, 90, 100, 200, false))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("acquireStart <= enter <= exit");
        assertThatThrownBy(() -> section("a", 1, 80, 90, 300, 200, false))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("after its exit");
        assertThatThrownBy(() -> section("a\tb", 1, 80, 90, 100, 200, false))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("client");
    }

    /** The sweeps against the obvious quadratic definitions, on random histories. */
    @Test
    void sweepsAgreeWithThePairwiseDefinitions() {
        Random random = new Random(42);
        for (int run = 0; run < 200; run++) {
            List<CriticalSection> sections = new ArrayList<>();
            int n = 1 + random.nextInt(30);
            for (int i = 0; i < n; i++) {
                long start = random.nextInt(1000);
                long enter = start + random.nextInt(50);
                long exit = enter + random.nextInt(100);
                long lastValid = enter - 1 + random.nextInt((int) (exit - enter) + 2);
                sections.add(
                        section("c" + i, random.nextInt(40), start, enter, lastValid, exit, random.nextInt(4) == 0));
            }
            CheckReport report = check(sections);

            long overlaps = 0;
            long unsafe = 0;
            long inversions = 0;
            for (CriticalSection a : sections) {
                for (CriticalSection b : sections) {
                    if (a == b) {
                        continue;
                    }
                    if (a.overlaps(b) && System.identityHashCode(a) < System.identityHashCode(b)) {
                        overlaps++;
                        if (a.bothBelievedValid(b)) {
                            unsafe++;
                        }
                    }
                }
            }
            for (CriticalSection later : sections) {
                boolean inverted = sections.stream()
                        .anyMatch(earlier -> earlier != later
                                && earlier.enterNanos() < later.acquireStartNanos()
                                && later.token() <= earlier.token());
                if (inverted) {
                    inversions++;
                }
            }
            assertThat(report.overlaps()).as("run %d", run).hasSize((int) overlaps);
            assertThat(report.unsafeOverlaps()).as("run %d", run).hasSize((int) unsafe);
            assertThat(report.tokenInversions()).as("run %d", run).hasSize((int) inversions);
        }
    }
}
