#!/bin/sh
test_description='hpcviewer-tui: long C++ names shortened, distinct instantiations kept apart'
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIRECTORY/lib/viewer-screen.sh"

# Two std::sort instantiations (int, double), a member of std::vector, and
# two instantiations of g that differ only in the order of their words.
mkdir db
cat >db/experiment.xml <<\EOT
<?xml version="1.0"?>
<HPCToolkitExperiment version="2.2"><Header n="cxx"/>
<SecCallPathProfile i="0" n="cxx"><SecHeader><MetricTable>
<Metric i="0" n="CPUTIME (sec):Sum (I)" v="derived-incr" t="inclusive" show="1" show-percent="1"/>
</MetricTable><ProcedureTable>
<Procedure i="0" n="void std::sort&lt;__gnu_cxx::__normal_iterator&lt;int*, std::vector&lt;int, std::allocator&lt;int&gt; &gt; &gt;&gt;(__gnu_cxx::__normal_iterator&lt;int*, std::vector&lt;int, std::allocator&lt;int&gt; &gt; &gt;, __gnu_cxx::__normal_iterator&lt;int*, std::vector&lt;int, std::allocator&lt;int&gt; &gt; &gt;)"/>
<Procedure i="1" n="void std::sort&lt;__gnu_cxx::__normal_iterator&lt;double*, std::vector&lt;double, std::allocator&lt;double&gt; &gt; &gt;&gt;(__gnu_cxx::__normal_iterator&lt;double*, std::vector&lt;double, std::allocator&lt;double&gt; &gt; &gt;, __gnu_cxx::__normal_iterator&lt;double*, std::vector&lt;double, std::allocator&lt;double&gt; &gt; &gt;)"/>
<Procedure i="2" n="std::vector&lt;int, std::allocator&lt;int&gt; &gt;::operator[](unsigned long)"/>
<Procedure i="3" n="void g&lt;std::pair&lt;int, long&gt;, std::allocator&lt;int&gt; &gt;()"/>
<Procedure i="4" n="void g&lt;std::pair&lt;long, int&gt;, std::allocator&lt;int&gt; &gt;()"/>
<Procedure i="5" n="main"/>
</ProcedureTable></SecHeader><SecCallPathProfileData>
<PF n="0" l="1"><M n="0" v="4"/></PF>
<PF n="1" l="2"><M n="0" v="3"/></PF>
<PF n="2" l="3"><M n="0" v="2"/></PF>
<PF n="3" l="4"><M n="0" v="1"/></PF>
<PF n="4" l="5"><M n="0" v="0.5"/></PF>
<PF n="5" l="6"><M n="0" v="0.25"/></PF>
</SecCallPathProfileData></SecCallPathProfile></HPCToolkitExperiment>
EOT

test_expect_success '--short-names: long lists collapsed, the words that differ kept' '
	hpcviewer-tui --stdio --short-names db >out &&
	cat >expect <<-\EOT &&
	CPUTIME (sec):Sum (I)  Scope (top-down)
	      1.08e+01 100.0%  - Experiment Aggregate Metrics
	      4.00e+00  37.2%      void std::sort<...int...>(...int...)
	      3.00e+00  27.9%      void std::sort<...double...>(...double...)
	      2.00e+00  18.6%      std::vector<...>::operator[](unsigned long)
	      1.00e+00   9.3%      void g<std::pair<int, long>, std::allocator<int> >()
	      5.00e-01   4.7%      void g<std::pair<long, int>, std::allocator<int> >()
	      2.50e-01   2.3%      main
	EOT
	test_cmp expect out &&
	hpcviewer-tui --csv --short-names db | sed -n 3p >row &&
	echo "1,procedure,void std::sort<...int...>(...int...),,1,4,37.21" >expect &&
	test_cmp expect row
'

test_expect_success 'full names with --width 0; at 80, 100 and 120 columns the short forms keep rows apart' '
	hpcviewer-tui --stdio --width 0 db | sed -n 3p | grep -q "^      4.00e+00  37.2%      void std::sort<__gnu_cxx::__normal_iterator<int\*, std::vector<int, std::allocator<int> > >>(__gnu" &&
	cat >expect <<-\EOT &&
	      4.00e+00  37.2%      void std::sort<...int...>(...int...)
	      3.00e+00  27.9%      void std::sort<...double...>(...double...)
	EOT
	for w in 80 100 120; do
		hpcviewer-tui --stdio --width $w db | sed -n 3,4p >rows &&
		test_cmp expect rows || return 1
	done &&
	hpcviewer-tui --stdio db >out &&
	sed -n 3,4p out >rows &&
	test_cmp expect rows &&
	grep -q "^      2.00e+00  18.6%      std::vector<int, std::allocator<int> >::operator\[\](unsigned long)$" out &&
	hpcviewer-tui --stdio --width 80 db | grep -q "^      2.00e+00  18.6%      std::vector<...>::operator\[\](unsigned long)$" &&
	hpcviewer-tui --stdio --width 40 db | sed -n 3,4p | cut -c 24- >rows &&
	test "$(sort -u rows | wc -l)" = 2
'

test_expect_success TMUX 'screen at 80 columns: long names in their short forms, < shows them everywhere' '
	open_viewer 80 24 db &&
	cat >expect <<-\EOT &&
	      4.00e+00  37.2%      void std::sort<...int...>(...int...)
	      3.00e+00  27.9%      void std::sort<...double...>(...double...)
	EOT
	screen | sed -n 4,5p >rows &&
	test_cmp expect rows &&
	keys j j && wait_for "row 3/7: void std::sort<__gnu_cxx::__normal_iterator<double*" &&
	keys "<" && wait_for "short names" &&
	screen | sed -n 4,5p >rows &&
	test_cmp expect rows &&
	keys k j && wait_for "row 3/7: void std::sort<...double...>(...double...)" &&
	keys "<" && wait_for "full names"
'

screen_done
test_done
