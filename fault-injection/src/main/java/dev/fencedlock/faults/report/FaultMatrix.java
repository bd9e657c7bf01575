package dev.fencedlock.faults.report;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.stream.Stream;

/**
 * The fault matrix of a run. Each scenario writes its row as a fragment ({@link #record}) into the
 * directory named by the system property {@code faults.matrix.dir} (the build sets {@code
 * target/fault-matrix}); {@link #main} assembles the fragments into the markdown table that {@code
 * docs/guarantees.md} shows. Fragments are files, so rows of a run survive a failing scenario and
 * the table is whatever actually ran.
 */
public final class FaultMatrix {
    private FaultMatrix() {}

    /** Writes {@code row} as a fragment, replacing an earlier one with the same id. */
    public static void record(MatrixRow row) {
        Path directory = Path.of(System.getProperty("faults.matrix.dir", "target/fault-matrix"));
        Properties fragment = new Properties();
        fragment.setProperty("fault", row.fault());
        fragment.setProperty("backend", row.backend());
        fragment.setProperty("rounds", Long.toString(row.rounds()));
        fragment.setProperty("sections", Long.toString(row.sections()));
        fragment.setProperty("overlaps", Long.toString(row.overlaps()));
        fragment.setProperty("unsafeOverlaps", Long.toString(row.unsafeOverlaps()));
        fragment.setProperty("lostLeases", Long.toString(row.lostLeases()));
        fragment.setProperty("staleRefused", Long.toString(row.staleRefused()));
        fragment.setProperty("staleAccepted", Long.toString(row.staleAccepted()));
        fragment.setProperty("lostUpdates", Long.toString(row.lostUpdates()));
        fragment.setProperty("control", row.control());
        fragment.setProperty("notes", row.notes());
        try {
            Files.createDirectories(directory);
            try (OutputStream out = Files.newOutputStream(directory.resolve(row.id() + ".properties"))) {
                fragment.store(out, null);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the fault-matrix row " + row.id(), e);
        }
    }

    /** Reads every fragment of {@code directory}, in id order. */
    public static List<MatrixRow> read(Path directory) throws IOException {
        List<MatrixRow> rows = new ArrayList<>();
        if (!Files.isDirectory(directory)) {
            return rows;
        }
        try (Stream<Path> files = Files.list(directory)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".properties"))
                    .sorted()
                    .toList()) {
                Properties fragment = new Properties();
                try (InputStream in = Files.newInputStream(file)) {
                    fragment.load(in);
                }
                String name = file.getFileName().toString();
                rows.add(new MatrixRow(
                        name.substring(0, name.length() - ".properties".length()),
                        fragment.getProperty("fault"),
                        fragment.getProperty("backend"),
                        number(fragment, "rounds"),
                        number(fragment, "sections"),
                        number(fragment, "overlaps"),
                        number(fragment, "unsafeOverlaps"),
                        number(fragment, "lostLeases"),
                        number(fragment, "staleRefused"),
                        number(fragment, "staleAccepted"),
                        number(fragment, "lostUpdates"),
                        fragment.getProperty("control"),
                        fragment.getProperty("notes")));
            }
        }
        return rows;
    }

    private static long number(Properties fragment, String key) {
        return Long.parseLong(fragment.getProperty(key, "0"));
    }

    /** The markdown table of {@code rows}. */
    public static String table(List<MatrixRow> rows) {
        StringBuilder text = new StringBuilder();
        text.append("| # | fault | backend | rounds | sections | overlaps (both valid) | leases lost |"
                + " stale writes refused | stale writes accepted | lost updates | unfenced control | notes |\n");
        text.append("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|---|\n");
        for (MatrixRow row : rows) {
            text.append("| ")
                    .append(row.id())
                    .append(" | ")
                    .append(cell(row.fault()))
                    .append(" | ")
                    .append(row.backend())
                    .append(" | ")
                    .append(row.rounds())
                    .append(" | ")
                    .append(row.sections())
                    .append(" | ")
                    .append(row.overlaps())
                    .append(" (")
                    .append(row.unsafeOverlaps())
                    .append(") | ")
                    .append(row.lostLeases())
                    .append(" | ")
                    .append(row.staleRefused())
                    .append(" | ")
                    .append(row.staleAccepted())
                    .append(" | ")
                    .append(row.lostUpdates())
                    .append(" | ")
                    .append(cell(row.control()))
                    .append(" | ")
                    .append(cell(row.notes()))
                    .append(" |\n");
        }
        return text.toString();
    }

    /** Text for a table cell: a bar would end the cell. */
    private static String cell(String text) {
        return text.replace("|", "\\|");
    }

    /**
     * Assembles the fragments into a markdown file.
     *
     * <p>Arguments: the fragment directory and the output file, e.g. {@code target/fault-matrix
     * target/fault-matrix.md}.
     */
    public static void main(String[] args) throws IOException {
        if (args.length != 2) {
            throw new IllegalArgumentException("usage: FaultMatrix <fragment directory> <output file>");
        }
        List<MatrixRow> rows = read(Path.of(args[0]));
        String text = "<!-- generated by dev.fencedlock.faults.report.FaultMatrix at "
                + Instant.now().truncatedTo(ChronoUnit.SECONDS) + " from " + rows.size() + " fragments -->\n"
                + table(rows);
        Files.writeString(Path.of(args[1]), text, StandardCharsets.UTF_8);
        System.out.print(text);
    }
}
