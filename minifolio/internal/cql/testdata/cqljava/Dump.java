// Dump prints cql-java's parse tree of each query it reads (one per line) as
// "query<TAB>tree", the format of ../cql-java-1.13.tsv, which TestCQLJava
// compares package cql's parser with. To regenerate that file with cql-java
// 1.13 (the version RMB's cql2pgjson and so mod-search use):
//
//   git clone https://github.com/indexdata/cql-java && cd cql-java && git checkout v1.13
//   mkdir classes && javac -nowarn -d classes $(find src/main/java -name '*.java') <path>/Dump.java
//   cut -f1 <path>/cql-java-1.13.tsv | java -cp classes Dump > new.tsv
//
// tree: (index relation[/modifier[=value]]… "term"), (and|or|not|prox[/mod…] left right),
// (sortby tree "key"[/mod…]…), (prefix …), or ERROR: cql-java's message.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.z3950.zing.cql.*;

public class Dump {
  static String quote(String s) {
    return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }

  static String mods(List<Modifier> ms) {
    StringBuilder b = new StringBuilder();
    for (Modifier m : ms) {
      b.append('/').append(m.getType());
      if (m.getComparison() != null) b.append(m.getComparison()).append(m.getValue());
    }
    return b.toString();
  }

  static String tree(CQLNode n) {
    if (n instanceof CQLTermNode) {
      CQLTermNode t = (CQLTermNode) n;
      return "(" + quote(t.getIndex()) + " " + t.getRelation().getBase() + mods(t.getRelation().getModifiers()) + " "
          + quote(t.getTerm()) + ")";
    }
    if (n instanceof CQLBooleanNode) {
      CQLBooleanNode b = (CQLBooleanNode) n;
      return "(" + b.getOperator().name().toLowerCase() + mods(b.getModifiers()) + " " + tree(b.getLeftOperand()) + " "
          + tree(b.getRightOperand()) + ")";
    }
    if (n instanceof CQLSortNode) {
      CQLSortNode s = (CQLSortNode) n;
      StringBuilder b = new StringBuilder("(sortby " + tree(s.getSubtree()));
      for (ModifierSet k : s.getSortIndexes()) b.append(' ').append(quote(k.getBase())).append(mods(k.getModifiers()));
      return b.append(')').toString();
    }
    return "(prefix)";
  }

  public static void main(String[] args) throws Exception {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (String q; (q = in.readLine()) != null; ) {
      String out;
      try {
        out = tree(new CQLParser().parse(q));
      } catch (CQLParseException e) {
        out = "ERROR: " + e.getMessage();
      } catch (Throwable e) {
        out = "ERROR: " + e.getClass().getSimpleName();
      }
      System.out.println(q + "\t" + out);
    }
  }
}
