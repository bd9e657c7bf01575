package dev.fencedlock.shedlock;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.fencedlock.shedlock.scheduled.ReportJob.Run;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * A {@code @Scheduled} ShedLock job while its only Redis is stopped and then restarted empty: its
 * runs are skipped quietly (no ERROR, one WARN when the backend stops answering, one INFO when it
 * answers again, counted in {@code fencedlock.shedlock.skipped}), and it runs again after.
 */
class ShedLockUnavailableIT extends ScheduledJobOnRedis {
    private static final String PROVIDER_LOGGER = FencedLockProvider.class.getName();

    @Autowired
    MeterRegistry meters;

    @Test
    void runsAreSkippedWithOneWarnWhileRedisIsDownAndOneInfoWhenItIsBack() throws Exception {
        awaitRun();
        Counter skipped = meters.get("fencedlock.shedlock.skipped")
                .tag("reason", "unavailable")
                .counter();
        double skippedBefore = skipped.count();
        ListAppender<ILoggingEvent> logs = new ListAppender<>();
        Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        logs.start();
        root.addAppender(logs);
        try {
            redis.stop();
            Thread.sleep(2000); // eight ticks with Redis down
            long restarted = System.nanoTime();
            redis.restartEmpty(); // then the restart quarantine: the lease time
            Run next = job.nextRunAfter(restarted, LEASE_TIME.plusSeconds(20));
            assertThat(next).as("the job runs again after the outage").isNotNull();
        } finally {
            root.detachAppender(logs);
        }

        List<ILoggingEvent> events = List.copyOf(logs.list);
        double skippedRuns = skipped.count() - skippedBefore;
        assertThat(skippedRuns).as("runs skipped during the outage").isGreaterThanOrEqualTo(8);
        assertThat(events)
                .as("no ERROR however many ticks were skipped")
                .noneMatch(e -> e.getLevel().isGreaterOrEqual(Level.ERROR));
        assertThat(events)
                .as("no per-tick scheduler failure")
                .noneMatch(e -> e.getFormattedMessage().contains("Unexpected error occurred in scheduled task"));
        assertThat(events(events, Level.WARN))
                .as("one WARN when the backend stopped answering")
                .singleElement()
                .satisfies(e -> assertThat(e.getFormattedMessage())
                        .contains("redlock lock backend cannot answer", "lock 'report'"));
        assertThat(events(events, Level.INFO))
                .as("one INFO when it answered again, with the count of skipped runs")
                .singleElement()
                .satisfies(e -> assertThat(e.getFormattedMessage())
                        .contains("answers again")
                        .contains("(" + (long) skippedRuns + " skipped"));
    }

    private static List<ILoggingEvent> events(List<ILoggingEvent> events, Level level) {
        return events.stream()
                .filter(e -> e.getLoggerName().equals(PROVIDER_LOGGER) && e.getLevel() == level)
                .toList();
    }
}
