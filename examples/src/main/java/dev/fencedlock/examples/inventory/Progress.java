package dev.fencedlock.examples.inventory;

import java.io.PrintStream;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Shows how many units are sold while the run goes on: a redrawn bar on a terminal, a plain line
 * every few seconds otherwise (logs, CI).
 */
final class Progress implements AutoCloseable {
    private final ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread thread = new Thread(r, "inventory-progress");
        thread.setDaemon(true);
        return thread;
    });
    private final PrintStream out;
    private final boolean terminal;
    private final long total;
    private final LongSupplier sold;

    Progress(PrintStream out, boolean terminal, long total, LongSupplier sold) {
        this.out = out;
        this.terminal = terminal;
        this.total = total;
        this.sold = sold;
    }

    Progress start() {
        long period = terminal ? 200 : 2000;
        ticker.scheduleAtFixedRate(this::show, period, period, TimeUnit.MILLISECONDS);
        return this;
    }

    private void show() {
        long done;
        try {
            done = sold.getAsLong();
        } catch (RuntimeException e) {
            return;
        }
        int percent = total == 0 ? 100 : (int) (done * 100 / total);
        if (terminal) {
            int filled = percent * 30 / 100;
            out.printf(
                    Locale.ROOT,
                    "\r[%s%s] %3d%% %d/%d sold",
                    "#".repeat(filled),
                    ".".repeat(30 - filled),
                    percent,
                    done,
                    total);
        } else {
            out.printf(Locale.ROOT, "progress: %d/%d sold (%d%%)%n", done, total, percent);
        }
        out.flush();
    }

    @Override
    public void close() {
        ticker.shutdownNow();
        if (terminal) {
            show();
            out.println();
        }
    }
}
