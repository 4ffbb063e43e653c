package seed

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
)

// PostgreSQL's binary COPY format for (id uuid, jsonb jsonb) rows: the
// server reads a uuid as its 16 bytes and a jsonb as a version byte and
// its text, with no text-format escaping to undo.
var copyHeader = []byte("PGCOPY\n\xff\r\n\x00" + "\x00\x00\x00\x00" + "\x00\x00\x00\x00")

// copyTrailer ends the rows (a field count of -1).
var copyTrailer = []byte{0xff, 0xff}

// appendCopyRow appends one row: 2 fields, the uuid, the jsonb.
func appendCopyRow(b []byte, id [16]byte, doc []byte) []byte {
	b = append(b, 0, 2, 0, 0, 0, 16)
	b = append(b, id[:]...)
	b = binary.BigEndian.AppendUint32(b, uint32(len(doc)+1))
	return append(append(b, 1), doc...)
}

// rowsDone counts the rows written by every stream of a seed, for the
// progress line.
type rowsDone struct{ n atomic.Int64 }

// writeCopy writes bk's rows in COPY binary format to w.
func (bk bulk) writeCopy(ctx context.Context, w io.Writer, done *rowsDone) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	if _, err := bw.Write(copyHeader); err != nil {
		return err
	}
	var doc, row []byte
	for i := 0; i < bk.n; i++ {
		var id [16]byte
		id, doc = bk.row(i, doc[:0])
		row = appendCopyRow(row[:0], id, doc)
		if _, err := bw.Write(row); err != nil {
			return err
		}
		if i%4096 == 4095 {
			done.n.Add(4096)
			if err := ctx.Err(); err != nil {
				return err
			}
		}
	}
	done.n.Add(int64(bk.n % 4096))
	if _, err := bw.Write(copyTrailer); err != nil {
		return err
	}
	return bw.Flush()
}

// copyIn loads bk into its (empty) table with COPY ... FREEZE: the table was
// emptied in this transaction, so PostgreSQL writes the rows frozen and
// visible to all (no later pass sets their hint bits or freezes them), and
// with wal_level=minimal it writes no WAL for them.
func (g *gen) copyIn(ctx context.Context, tx pgx.Tx, bk bulk, done *rowsDone) error {
	if bk.n == 0 {
		return nil
	}
	start := time.Now()
	pr, pw := io.Pipe()
	werr := make(chan error, 1)
	go func() {
		err := bk.writeCopy(ctx, pw, done)
		pw.CloseWithError(err)
		werr <- err
	}()
	tag, err := tx.Conn().PgConn().CopyFrom(ctx, pr,
		"COPY "+bk.t.QualifiedName(g.t)+" (id, jsonb) FROM STDIN WITH (FORMAT binary, FREEZE)")
	pr.CloseWithError(io.ErrClosedPipe) // the writer stops if the server gave up first
	if e := <-werr; err == nil && e != nil {
		err = e
	}
	if err != nil {
		return fmt.Errorf("loading %s: %w", bk.t.Name, err)
	}
	g.progress("%s: %d rows in %s", bk.t.Name, tag.RowsAffected(), time.Since(start).Round(time.Millisecond))
	return nil
}

// CopyFileName is the file CopyDir holds a table's rows in.
func CopyFileName(schema, table string) string { return schema + "." + table + ".copy" }

// copyToFile writes bk's COPY stream to dir (Options.CopyDir).
func (g *gen) copyToFile(ctx context.Context, dir string, bk bulk, done *rowsDone) error {
	if bk.n == 0 {
		return nil
	}
	f, err := os.Create(filepath.Join(dir, CopyFileName(bk.t.Schema, bk.t.Name)))
	if err != nil {
		return err
	}
	if err := bk.writeCopy(ctx, f, done); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
