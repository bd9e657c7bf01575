package dev.fencedlock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencedlock.spi.TokenOrder;
import java.nio.charset.StandardCharsets;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;

/** What a token node's data and stat say about the last token issued ({@link LockTokens.Record}). */
class LockTokensTest {
    private static final long MTIME = 1_795_000_000_000L;
    private static final long CZXID = 42;

    private static LockTokens.Record read(String data) {
        Stat stat = new Stat();
        stat.setMtime(MTIME);
        stat.setCzxid(CZXID);
        stat.setVersion(3);
        return LockTokens.Record.of("/fencedlock/%tokens/x", data.getBytes(StandardCharsets.US_ASCII), stat);
    }

    @Test
    void theLastTokenIsNextOfTheDataAndTheWriteTime() {
        long previous = TokenOrder.floor(MTIME) + 5;
        assertThat(read(previous + " " + CZXID).lastIssued()).isEqualTo(previous + 1);
        assertThat(read(Long.toString(previous)).lastIssued())
                .as("data without a czxid, as the first write and earlier versions leave it")
                .isEqualTo(previous + 1);
        assertThat(read("0").lastIssued()).isEqualTo(TokenOrder.floor(MTIME));
        assertThat(read("0").czxid()).isEqualTo(CZXID);
        assertThat(read("0").version()).isEqualTo(3);
    }

    @Test
    void aWriteByAClientThatReadAnotherNodeCountsEveryTokenOfItsMillisecond() {
        long old = TokenOrder.floor(MTIME - 86_400_000L);
        LockTokens.Record record = read(old + " " + (CZXID - 10));
        assertThat(record.lastIssued())
                .as("above any token issued on this node up to a write at mtime")
                .isEqualTo(TokenOrder.floor(MTIME + 1) - 1);
        assertThat(TokenOrder.next(record.lastIssued(), MTIME)).isEqualTo(TokenOrder.floor(MTIME + 1));
    }

    @Test
    void dataThatIsNoTokenRestsOnTheClock() {
        assertThat(read("garbage").lastIssued()).isEqualTo(TokenOrder.floor(MTIME));
    }
}
