package dev.fencedlock.shedlock.app;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.springframework.stereotype.Component;

/**
 * A ShedLock job as applications write them (usually also {@code @Scheduled}; called directly
 * here so the test decides when it runs): the lock around the job, the write in a transactional
 * service.
 */
@Component
public class NightlyJob {
    private final ResultStore store;

    NightlyJob(ResultStore store) {
        this.store = store;
    }

    /** Records {@code value}, after waiting for {@code go} (standing for a pause of the process). */
    @SchedulerLock(name = "nightly", lockAtMostFor = "1s")
    public void run(String value, CountDownLatch go) throws InterruptedException {
        if (!go.await(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("not released");
        }
        store.record(value);
    }
}
