package dev.fencedlock.shedlock;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.fencedlock.LockUnavailableException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** The WARN and INFO of a backend's changes, told once each however many threads see them. */
class BackendAvailabilityTest {
    private static final int THREADS = 8;
    private static final int RUNS_PER_THREAD = 50;

    private final Logger logger = (Logger) LoggerFactory.getLogger(FencedLockProvider.class);
    private final ListAppender<ILoggingEvent> logs = new ListAppender<>();
    private final AtomicInteger counted = new AtomicInteger();
    private final BackendAvailability availability = new BackendAvailability("redlock", counted::incrementAndGet);

    @BeforeEach
    void capture() {
        logs.start();
        logger.addAppender(logs);
    }

    @AfterEach
    void release() {
        logger.detachAppender(logs);
    }

    @Test
    void manyThreadsSkippingLogOneWarnAndTheFirstAnswerOneInfo() throws Exception {
        onThreads(() -> availability.skipped("job", unavailable()));
        onThreads(availability::answered);

        assertThat(counted).hasValue(THREADS * RUNS_PER_THREAD);
        assertThat(messages(Level.WARN))
                .singleElement()
                .asString()
                .contains("redlock lock backend cannot answer", "lock 'job'", "Redis is down");
        assertThat(messages(Level.INFO))
                .singleElement()
                .asString()
                .contains("answers again", "(" + THREADS * RUNS_PER_THREAD + " skipped");
    }

    @Test
    void eachOutageIsToldAgainAndAnswersWhileAvailableAreSilent() {
        availability.answered();
        availability.skipped("job", unavailable());
        availability.answered();
        availability.skipped("other", unavailable());
        availability.skipped("job", unavailable());
        availability.answered();
        availability.answered();

        assertThat(messages(Level.WARN)).hasSize(2);
        assertThat(messages(Level.INFO))
                .satisfiesExactly(
                        first -> assertThat(first).contains("(1 skipped"),
                        second -> assertThat(second).contains("(2 skipped"));
    }

    private void onThreads(Runnable run) throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(THREADS);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                done.add(threads.submit(() -> {
                    start.await();
                    for (int i = 0; i < RUNS_PER_THREAD; i++) {
                        run.run();
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> f : done) {
                f.get(30, TimeUnit.SECONDS);
            }
        } finally {
            threads.shutdownNow();
        }
    }

    private List<String> messages(Level level) {
        return logs.list.stream()
                .filter(e -> e.getLevel() == level)
                .map(ILoggingEvent::getFormattedMessage)
                .toList();
    }

    private static LockUnavailableException unavailable() {
        return new LockUnavailableException("job", "Redis is down", null);
    }
}
