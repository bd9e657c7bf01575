package dev.fencedlock.faults;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/** {@code redis-cli} runs, as an operator would type them; the output is its text. Thread-safe. */
final class RedisCli {
    static final String PASSWORD = "change-me";

    private RedisCli() {}

    /** One command to the data node on {@code port}, authenticated with {@link #PASSWORD}. */
    static String data(int port, String... command) {
        List<String> args = new ArrayList<>(List.of(
                "redis-cli", "-h", "127.0.0.1", "-p", Integer.toString(port), "-a", PASSWORD, "--no-auth-warning"));
        args.addAll(List.of(command));
        return run(args);
    }

    /** One command to the Sentinel on {@code port} (no password). */
    static String sentinel(int port, String... command) {
        List<String> args = new ArrayList<>(List.of("redis-cli", "-h", "127.0.0.1", "-p", Integer.toString(port)));
        args.addAll(List.of(command));
        return run(args);
    }

    /** A reply of field and value lines ({@code SENTINEL MASTER}) as a map. */
    static Map<String, String> fields(String reply) {
        String[] lines = reply.split("\\R");
        Map<String, String> fields = new HashMap<>();
        for (int i = 0; i + 1 < lines.length; i += 2) {
            fields.put(lines[i], lines[i + 1]);
        }
        return fields;
    }

    /** Polls {@code condition} for 30 s; a check that fails with a redis-cli error counts as not yet. */
    static void awaitUntil(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try {
                if (condition.getAsBoolean()) {
                    return;
                }
            } catch (IllegalStateException notYet) {
                // a node not answering yet
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("not within 30 s: " + what);
            }
            RecipeServer.sleep(50);
        }
    }

    /**
     * Runs {@code command} (the executable first) and returns what it printed.
     *
     * @throws IllegalStateException if it runs longer than 60 s or exits with a non-zero status
     */
    static String run(List<String> command) {
        try {
            // output to a file, so that a command that never ends is bounded by waitFor, not a read
            Path output = Files.createTempFile("fencedlock-redis-cli-", ".out");
            try {
                Process process = new ProcessBuilder(command)
                        .redirectErrorStream(true)
                        .redirectOutput(output.toFile())
                        .start();
                process.getOutputStream().close();
                if (!process.waitFor(60, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                    throw new IllegalStateException(command + " did not finish in 60 s");
                }
                String text = Files.readString(output);
                if (process.exitValue() != 0) {
                    throw new IllegalStateException(command + " exited with " + process.exitValue() + ":\n" + text);
                }
                return text;
            } finally {
                Files.deleteIfExists(output);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted running " + command, e);
        }
    }
}
