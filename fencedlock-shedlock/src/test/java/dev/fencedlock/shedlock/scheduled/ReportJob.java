package dev.fencedlock.shedlock.scheduled;

import dev.fencedlock.Lease;
import dev.fencedlock.spring.CurrentLease;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * A job that ticks every 250 ms under a ShedLock lock with a ten-minute {@code lockAtMostFor} and
 * records each run it makes. Thread-safe.
 */
@Component
public class ReportJob {
    /** One run: when it started ({@link System#nanoTime()}) and how long its lease had left then. */
    public record Run(long startedNanos, Duration leaseLeft) {}

    private final BlockingQueue<Run> runs = new LinkedBlockingQueue<>();

    @Scheduled(fixedDelay = 250)
    @SchedulerLock(name = "report", lockAtMostFor = "10m")
    public void run() {
        Duration left = CurrentLease.get().map(Lease::remaining).orElse(Duration.ZERO);
        runs.add(new Run(System.nanoTime(), left));
    }

    /** The next run that started at or after {@code afterNanos}, or null if none within {@code wait}. */
    public Run nextRunAfter(long afterNanos, Duration wait) throws InterruptedException {
        long deadline = System.nanoTime() + wait.toNanos();
        while (true) {
            Run run = runs.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (run == null || run.startedNanos() - afterNanos >= 0) {
                return run;
            }
        }
    }
}
