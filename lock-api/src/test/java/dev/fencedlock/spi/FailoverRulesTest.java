package dev.fencedlock.spi;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencedlock.LockConfig.FallbackTakeover;
import dev.fencedlock.LockUnavailableException;
import dev.fencedlock.spi.FailoverRules.Phase;
import dev.fencedlock.spi.FailoverRules.Return;
import dev.fencedlock.spi.FailoverRules.Route;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** Every phase transition of {@link FailoverRules}, driven by instants the test passes in: no threads, no clock. */
class FailoverRulesTest {
    private static final long SECOND = 1_000_000_000L;
    private static final long PROBE = SECOND;
    private static final long T0 = 1_000 * SECOND;
    private static final Instant WALL = Instant.parse("2026-01-01T00:00:00Z");
    private static final LockUnavailableException DOWN = new LockUnavailableException("x", "primary down", null);

    private static FailoverRules waitOut() {
        return new FailoverRules(FallbackTakeover.WAIT_OUT, PROBE);
    }

    @Test
    void onThePrimaryEveryAcquisitionGoesToThePrimaryAndNothingIsWithheld() {
        FailoverRules rules = waitOut();
        assertThat(rules.phase()).isEqualTo(Phase.PRIMARY);
        assertThat(rules.route(T0)).isEqualTo(Route.PRIMARY);
        assertThat(rules.withholds(true, T0)).isFalse();
        assertThat(rules.withholds(false, T0)).isFalse();
        assertThat(rules.fallbackMayGrant(T0)).isFalse();
        assertThat(rules.takeSwitchBackNotice())
                .as("no return to report before any failure")
                .isFalse();
        assertThat(rules.failure()).isNull();
    }

    @Test
    void aFailureMovesToDownAndTheFallbackGrantsFromTheEndOfThePrimarysWaitOut() {
        FailoverRules rules = waitOut();
        assertThat(rules.primaryFailed(T0, WALL, 5 * SECOND, DOWN)).isTrue();
        assertThat(rules.phase()).isEqualTo(Phase.DOWN);
        assertThat(rules.failure()).isSameAs(DOWN);
        assertThat(rules.downAt()).isEqualTo(WALL);
        assertThat(rules.takeoverAtNanos()).isEqualTo(T0 + 5 * SECOND);

        long justBefore = T0 + 5 * SECOND - 1;
        assertThat(rules.route(justBefore)).isEqualTo(Route.waitUntil(Phase.DOWN, T0 + 5 * SECOND));
        assertThat(rules.withholds(false, justBefore))
                .as("the fallback before the takeover")
                .isTrue();
        assertThat(rules.withholds(true, justBefore))
                .as("the primary is not withheld, it cannot answer")
                .isFalse();
        assertThat(rules.fallbackMayGrant(justBefore)).isFalse();

        assertThat(rules.route(T0 + 5 * SECOND)).isEqualTo(Route.FALLBACK);
        assertThat(rules.withholds(false, T0 + 5 * SECOND)).isFalse();
        assertThat(rules.fallbackMayGrant(T0 + 5 * SECOND)).isTrue();
    }

    @Test
    void aSecondFailureWhileDownOrReturningChangesNothing() {
        FailoverRules rules = waitOut();
        rules.primaryFailed(T0, WALL, 5 * SECOND, DOWN);
        assertThat(rules.primaryFailed(T0 + SECOND, WALL, 9 * SECOND, DOWN)).isFalse();
        assertThat(rules.takeoverAtNanos()).isEqualTo(T0 + 5 * SECOND);

        assertThat(rules.primaryAnswersAgain(T0 + 10 * SECOND, WALL, T0 + 10 * SECOND, 3 * SECOND))
                .isEqualTo(Return.WAITING_OUT);
        assertThat(rules.primaryFailed(T0 + 11 * SECOND, WALL, 5 * SECOND, DOWN))
                .isFalse();
        assertThat(rules.phase()).isEqualTo(Phase.RETURNING);
    }

    @Test
    void aPrimaryGrantWhileDownPushesTheTakeoverOutAndATakenAnswerDoesNot() {
        FailoverRules rules = waitOut();
        rules.primaryFailed(T0, WALL, 3 * SECOND, DOWN);
        rules.primaryAnswered(T0 + SECOND, true);
        assertThat(rules.takeoverAtNanos()).isEqualTo(T0 + 4 * SECOND);
        rules.primaryAnswered(T0 + 2 * SECOND, false);
        assertThat(rules.takeoverAtNanos()).isEqualTo(T0 + 4 * SECOND);
        rules.primaryAnswered(T0 - SECOND, true); // an older grant: inside the wait-out already counted
        assertThat(rules.takeoverAtNanos()).isEqualTo(T0 + 4 * SECOND);
    }

    @Test
    void immediateTakesOverAtOnceAndAPrimaryGrantWhileDownDoesNotDelayIt() {
        FailoverRules rules = new FailoverRules(FallbackTakeover.IMMEDIATE, PROBE);
        rules.primaryFailed(T0, WALL, 0, DOWN);
        assertThat(rules.route(T0)).isEqualTo(Route.FALLBACK);
        rules.primaryAnswered(T0, true);
        assertThat(rules.route(T0)).isEqualTo(Route.FALLBACK);
    }

    @Test
    void aReturnAfterATakeoverWaitsOutTheFallbackAndAProbeIntervalThenReportsTheSwitchBackOnce() {
        FailoverRules rules = waitOut();
        rules.primaryAnswered(T0, true);
        rules.primaryFailed(T0, WALL, 3 * SECOND, DOWN);
        long heard = T0 + 10 * SECOND;
        Instant heardWall = WALL.plusSeconds(10);

        assertThat(rules.primaryAnswersAgain(heard, heardWall, heard, 4 * SECOND))
                .isEqualTo(Return.WAITING_OUT);
        long switchBack = heard + 4 * SECOND + PROBE;
        assertThat(rules.phase()).isEqualTo(Phase.RETURNING);
        assertThat(rules.backAt()).isEqualTo(heardWall);
        assertThat(rules.backAtNanos()).isEqualTo(heard);
        assertThat(rules.fallbackWaitNanos()).isEqualTo(4 * SECOND + PROBE);
        assertThat(rules.switchBackAtNanos()).isEqualTo(switchBack);

        assertThat(rules.route(switchBack - 1)).isEqualTo(Route.waitUntil(Phase.RETURNING, switchBack));
        assertThat(rules.withholds(true, switchBack - 1)).isTrue();
        assertThat(rules.withholds(false, switchBack - 1)).isTrue();
        assertThat(rules.fallbackMayGrant(switchBack - 1))
                .as("a fallback grant of an acquisition already on its way is not handed out")
                .isFalse();
        assertThat(rules.takeSwitchBackNotice()).isFalse();

        assertThat(rules.route(switchBack)).isEqualTo(Route.PRIMARY);
        assertThat(rules.phase()).isEqualTo(Phase.PRIMARY);
        assertThat(rules.failure()).isNull();
        assertThat(rules.withholds(true, switchBack)).isFalse();
        assertThat(rules.takeSwitchBackNotice()).isTrue();
        assertThat(rules.takeSwitchBackNotice()).isFalse();
    }

    @Test
    void aReturnAtLeastAProbeIntervalBeforeAnyTakeoverGoesBackAtOnceAndLaterIsWaitedOut() {
        // last answer at T0, wait-out 10 s: free while heard + probe < T0 + 10 s
        FailoverRules early = returned(T0 + 9 * SECOND - 1);
        assertThat(early.phase()).isEqualTo(Phase.PRIMARY);
        assertThat(early.takeSwitchBackNotice()).isTrue();

        FailoverRules late = returned(T0 + 9 * SECOND);
        assertThat(late.phase()).isEqualTo(Phase.RETURNING);
    }

    /** The rules after a primary, last heard at T0 with a 10 s wait-out, fails at T0 + 1 s and is heard at {@code heard}. */
    private static FailoverRules returned(long heard) {
        FailoverRules rules = waitOut();
        rules.primaryAnswered(T0, false);
        rules.primaryFailed(T0 + SECOND, WALL, 10 * SECOND, DOWN);
        Return taken = rules.primaryAnswersAgain(heard, WALL, heard, 10 * SECOND);
        assertThat(taken).isIn(Return.NOBODY_TOOK_OVER, Return.WAITING_OUT);
        return rules;
    }

    @Test
    void aClientThatNeverHeardThePrimaryWaitsOutTheFallbackAtItsReturn() {
        FailoverRules rules = waitOut();
        rules.primaryFailed(T0, WALL, 10 * SECOND, DOWN);
        assertThat(rules.primaryAnswersAgain(T0 + SECOND, WALL, T0 + SECOND, 10 * SECOND))
                .isEqualTo(Return.WAITING_OUT);
    }

    @Test
    void immediateReturnsAtOnceAndReportsTheSwitchBack() {
        FailoverRules rules = new FailoverRules(FallbackTakeover.IMMEDIATE, PROBE);
        rules.primaryFailed(T0, WALL, 0, DOWN);
        assertThat(rules.primaryAnswersAgain(T0 + SECOND, WALL, T0 + SECOND, 30 * SECOND))
                .isEqualTo(Return.IMMEDIATE);
        assertThat(rules.route(T0 + SECOND)).isEqualTo(Route.PRIMARY);
        assertThat(rules.takeSwitchBackNotice()).isTrue();
    }

    @Test
    void aReturnHeardWhileNotDownIsIgnored() {
        FailoverRules rules = waitOut();
        assertThat(rules.primaryAnswersAgain(T0, WALL, T0, SECOND)).isEqualTo(Return.IGNORED);
        assertThat(rules.phase()).isEqualTo(Phase.PRIMARY);

        rules.primaryFailed(T0, WALL, SECOND, DOWN);
        rules.primaryAnswersAgain(T0 + 5 * SECOND, WALL, T0 + 5 * SECOND, SECOND);
        long switchBack = rules.switchBackAtNanos();
        assertThat(rules.primaryAnswersAgain(T0 + 6 * SECOND, WALL, T0 + 6 * SECOND, 9 * SECOND))
                .as("a second return while returning")
                .isEqualTo(Return.IGNORED);
        assertThat(rules.switchBackAtNanos()).isEqualTo(switchBack);
    }

    @Test
    void afterASwitchBackTheNextFailureStartsANewOutage() {
        FailoverRules rules = new FailoverRules(FallbackTakeover.IMMEDIATE, PROBE);
        rules.primaryFailed(T0, WALL, 0, DOWN);
        rules.primaryAnswersAgain(T0 + SECOND, WALL, T0 + SECOND, SECOND);
        rules.takeSwitchBackNotice();
        assertThat(rules.primaryFailed(T0 + 2 * SECOND, WALL.plusSeconds(2), 0, DOWN))
                .isTrue();
        assertThat(rules.phase()).isEqualTo(Phase.DOWN);
        assertThat(rules.downAt()).isEqualTo(WALL.plusSeconds(2));
    }
}
