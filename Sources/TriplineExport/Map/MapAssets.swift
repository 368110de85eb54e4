/// The page's fixed style sheet and script. Neither contains anything from the data: the data travels in a
/// `<script type="application/json">` block that the script parses, and the script writes it into the page only
/// through `textContent` and attribute setters, never as markup.
///
/// The script is plain ES2017 and, like the style sheet, refers to nothing outside the page (no URL, import, font
/// or image). Its SHA-256 goes into the page's Content-Security-Policy (`script-src 'sha256-…'`), which with
/// `default-src 'none'` also forbids any network access.
enum MapAssets {
    static let style = """
        *{box-sizing:border-box}
        html,body{margin:0;height:100%}
        body{display:flex;height:100vh;overflow:hidden;font:14px/1.4 system-ui,"DejaVu Sans","Segoe UI",Roboto,Helvetica,Arial,sans-serif;color:#1d2733;background:#fff}
        #pane{position:relative;flex:1 1 auto;min-width:0;background:#e9eef2}
        #map{width:100%;height:100%;display:block;touch-action:none;cursor:grab;user-select:none;-webkit-user-select:none}
        #map.drag{cursor:grabbing}
        #map .grid{stroke:#d6dee5;stroke-width:1;vector-effect:non-scaling-stroke;fill:none}
        #map path.trip{fill:none;stroke-width:2.4;stroke-linecap:round;stroke-linejoin:round;vector-effect:non-scaling-stroke;stroke-opacity:.8}
        #map path.s{stroke-dasharray:6 5;stroke-width:1.6}
        #map circle{fill:#c0392b;fill-opacity:.22;stroke:#96281b;stroke-opacity:.8;stroke-width:1;vector-effect:non-scaling-stroke}
        #map .hl path.trip{stroke-width:5;stroke-opacity:1}
        #map circle.hl{fill-opacity:.6;stroke-width:2}
        #labels text{fill:#14202b;stroke:#fff;stroke-linejoin:round;paint-order:stroke;font-weight:600;pointer-events:none}
        #map .empty{fill:#5b6770}
        .box{position:absolute;background:rgba(255,255,255,.94);border-radius:6px;box-shadow:0 1px 4px rgba(0,0,0,.25);padding:7px 10px;font-size:13px}
        #legend{left:12px;bottom:12px;max-width:260px}
        #legend.right{left:auto;right:12px}
        #legend b{display:block;margin-bottom:2px}
        #legend div{display:flex;align-items:center;gap:7px;white-space:nowrap}
        .ln{display:inline-block;width:22px;height:4px;border-radius:2px}
        .dot{display:inline-block;width:12px;height:12px;border-radius:50%;background:rgba(192,57,43,.3);border:1px solid #96281b;margin:0 5px}
        .dash{display:inline-block;width:22px;border-top:2px dashed #555}
        #scale{left:12px;top:12px;display:flex;align-items:center;gap:8px}
        #scalebar{height:8px;border:2px solid #1d2733;border-top:none}
        #north{right:12px;top:12px;text-align:center;padding:4px 8px;line-height:1}
        #zoom{right:12px;top:70px;display:flex;flex-direction:column;gap:4px;padding:4px}
        #zoom button{width:30px;height:30px;font-size:18px;border:1px solid #b8c2cc;background:#fff;border-radius:4px;cursor:pointer;padding:0}
        #tip{pointer-events:none;max-width:320px;z-index:5}
        #tip div:first-child{font-weight:600}
        #side{flex:0 0 390px;overflow-y:auto;padding:14px 18px;border-left:1px solid #d5dbe1}
        h1{font-size:20px;margin:0 0 2px}
        h2{font-size:14px;margin:16px 0 6px;color:#46525c;text-transform:uppercase;letter-spacing:.04em}
        .sub{color:#5b6770;margin:0 0 10px;word-break:break-word}
        #picker{display:flex;gap:6px;align-items:center;flex-wrap:wrap}
        #picker select{font:inherit;padding:2px 4px}
        .stats{display:grid;grid-template-columns:1fr 1fr;gap:8px;margin:12px 0 0}
        .stats div{background:#f3f6f8;border-radius:6px;padding:6px 10px}
        .stats dt{font-size:12px;color:#5b6770}
        .stats dd{margin:0;font-size:19px;font-weight:600}
        table.modes{border-collapse:collapse;width:100%}
        table.modes td{padding:2px 4px}
        table.modes td:nth-child(n+2){text-align:right;white-space:nowrap}
        .sw{display:inline-block;width:12px;height:12px;border-radius:3px;margin-right:6px;vertical-align:-1px}
        ol.places{margin:0;padding-left:22px}
        ol.places li{margin:2px 0}
        .pn{font-weight:600;word-break:break-word}
        .pv{color:#5b6770;margin-left:6px;white-space:nowrap}
        #chart{width:100%;height:auto;display:block}
        #chart rect.bar{fill:#4a7fb5;cursor:pointer}
        #chart rect.bar:hover,#chart rect.sel{fill:#e07b00}
        #chart text{font-size:10px;fill:#5b6770}
        #chart line{stroke:#9aa5ae;stroke-width:1}
        .nothing{background:#fff6e0;border:1px solid #f0d28a;border-radius:6px;padding:8px 10px}
        """

    static let script = #"""
        (function(){"use strict";
        var D=JSON.parse(document.getElementById("data").textContent);
        var svg=document.getElementById("map");
        var V=D.view,U=V[2]*V[3],W=V[4]*V[3],H=V[5]*V[3];
        var vb={x:0,y:0,w:W,h:H};
        var labels=document.getElementById("labels");
        var F0=labels?+labels.getAttribute("font-size"):0,S0=labels?+labels.getAttribute("stroke-width"):0;
        var circles=Array.prototype.slice.call(svg.querySelectorAll("circle[data-v]"));
        var R0=circles.map(function(c){return +c.getAttribute("r");});
        var trips=Array.prototype.slice.call(svg.querySelectorAll("g[data-t]"));
        var tip=document.getElementById("tip"),pane=document.getElementById("pane");
        var bar=document.getElementById("scalebar"),blabel=document.getElementById("scalelabel");
        function el(tag,cls,text){var e=document.createElement(tag);if(cls)e.className=cls;if(text!=null)e.textContent=text;return e;}
        function grp(n){var s=String(Math.abs(n)),o="";for(var i=0;i<s.length;i++){if(i>0&&(s.length-i)%3===0)o+="\u202F";o+=s[i];}return (n<0?"-":"")+o;}
        function dist(m){if(m<1000)return Math.round(m)+" m";if(m<100000)return (m/1000).toFixed(1)+" km";return grp(Math.round(m/1000))+" km";}
        function dur(s){s=Math.round(Math.max(0,s));if(s<60)return s+" s";var mi=Math.floor((s+30)/60);if(mi<60)return mi+" min";var m=mi%60;return grp(Math.floor(mi/60))+" h "+(m<10?"0":"")+m+" min";}
        function iso(s){return new Date(s*1000).toISOString();}
        function dayStr(d){return iso(d*86400).slice(0,10);}
        function off(o){var a=Math.abs(o),h=Math.floor(a/3600),m=Math.floor(a/60)%60;return "UTC"+(o<0?"\u2212":"+")+(h<10?"0":"")+h+":"+(m<10?"0":"")+m;}
        function span(a,b){var x=iso(a),y=iso(b);return x.slice(0,10)+" "+x.slice(11,16)+" \u2192 "+(y.slice(0,10)===x.slice(0,10)?"":y.slice(0,10)+" ")+y.slice(11,16);}
        function mercLat(y){return Math.atan(Math.sinh(Math.PI*(1-2*y)))*180/Math.PI;}
        function scalebar(){
          var c=svg.getScreenCTM();if(!c||!bar)return;var ppu=c.a;
          var cy=V[1]+(vb.y+vb.h/2)/U,mpu=2*Math.PI*6371008.8*Math.cos(mercLat(cy)*Math.PI/180)/U;
          var max=120/ppu*mpu,p=Math.pow(10,Math.floor(Math.log(max)/Math.LN10)),n=p;
          if(5*p<=max)n=5*p;else if(2*p<=max)n=2*p;
          bar.style.width=(n/mpu*ppu).toFixed(1)+"px";blabel.textContent=n>=1000?(n/1000)+" km":n+" m";
        }
        function apply(){
          svg.setAttribute("viewBox",vb.x+" "+vb.y+" "+vb.w+" "+vb.h);
          var k=W/vb.w;
          if(labels){labels.setAttribute("font-size",F0/k);labels.setAttribute("stroke-width",S0/k);labels.style.display=k<0.9?"none":"";}
          for(var i=0;i<circles.length;i++)circles[i].setAttribute("r",R0[i]/k);
          scalebar();
        }
        function toSvg(cx,cy){var p=svg.createSVGPoint();p.x=cx;p.y=cy;return p.matrixTransform(svg.getScreenCTM().inverse());}
        function zoomAt(cx,cy,f){
          var w=Math.min(W*8,Math.max(W/128,vb.w/f));f=vb.w/w;var p=toSvg(cx,cy);
          vb.x=p.x-(p.x-vb.x)/f;vb.y=p.y-(p.y-vb.y)/f;vb.w/=f;vb.h/=f;apply();
        }
        function zoomCentre(f){var r=svg.getBoundingClientRect();zoomAt(r.left+r.width/2,r.top+r.height/2,f);}
        function fitBox(b){
          if(!b||!(b.width>=0)){vb={x:0,y:0,w:W,h:H};apply();return;}
          var m=Math.max(b.width,b.height*W/H,W/200)*0.08,w=Math.max(b.width+2*m,(b.height+2*m)*W/H,W/200),h=w*H/W;
          vb={x:b.x+b.width/2-w/2,y:b.y+b.height/2-h/2,w:w,h:h};apply();
        }
        var drag=null,pinned=false;
        svg.addEventListener("wheel",function(e){e.preventDefault();zoomAt(e.clientX,e.clientY,Math.exp(-e.deltaY*(e.deltaMode===1?0.05:0.002)));},{passive:false});
        svg.addEventListener("dblclick",function(e){e.preventDefault();zoomAt(e.clientX,e.clientY,2);});
        var touches={},pinch=0;
        function spread(){var k=Object.keys(touches);if(k.length!==2)return null;var a=touches[k[0]],b=touches[k[1]];return {d:Math.hypot(a.x-b.x,a.y-b.y),x:(a.x+b.x)/2,y:(a.y+b.y)/2};}
        svg.addEventListener("pointerdown",function(e){
          if(e.pointerType==="touch"){touches[e.pointerId]={x:e.clientX,y:e.clientY};var s=spread();if(s){drag=null;pinch=s.d;hide();return;}}
          if(e.button!==0)return;drag={x:e.clientX,y:e.clientY,vx:vb.x,vy:vb.y,ppu:svg.getScreenCTM().a,moved:false,target:e.target,id:e.pointerId};
        });
        function untouch(e){delete touches[e.pointerId];if(Object.keys(touches).length<2)pinch=0;}
        svg.addEventListener("pointerup",untouch);svg.addEventListener("pointercancel",untouch);
        svg.addEventListener("pointermove",function(e){
          if(touches[e.pointerId]){touches[e.pointerId]={x:e.clientX,y:e.clientY};if(pinch){var s=spread();if(s&&s.d>0){zoomAt(s.x,s.y,s.d/pinch);pinch=s.d;}return;}}
          if(drag&&drag.id===e.pointerId){
            var dx=e.clientX-drag.x,dy=e.clientY-drag.y;
            if(!drag.moved&&dx*dx+dy*dy>16){drag.moved=true;svg.classList.add("drag");try{svg.setPointerCapture(e.pointerId);}catch(x){}hide();}
            if(drag.moved){vb.x=drag.vx-dx/drag.ppu;vb.y=drag.vy-dy/drag.ppu;apply();}
            return;
          }
          if(!pinned&&e.pointerType==="mouse")show(e.target,e);
        });
        function end(e){
          if(!drag||drag.id!==e.pointerId)return;
          var d=drag;drag=null;svg.classList.remove("drag");
          if(!d.moved){if(show(d.target,e))pinned=true;else{pinned=false;hide();}}
        }
        svg.addEventListener("pointerup",end);svg.addEventListener("pointercancel",function(e){drag=null;svg.classList.remove("drag");});
        svg.addEventListener("pointerleave",function(){if(!pinned&&!drag)hide();});
        var zb=document.getElementById("zoom");
        if(zb){zb.addEventListener("click",function(e){var a=e.target.getAttribute("data-z");if(a==="in")zoomCentre(2);else if(a==="out")zoomCentre(0.5);else if(a==="fit")fitPeriod();});}
        var hl=null;
        function hide(){tip.hidden=true;if(hl){hl.classList.remove("hl");hl=null;}}
        function lines(t){
          var g=null,v=null;
          if(t&&t.tagName==="path"&&t.parentNode.hasAttribute("data-t"))g=t.parentNode;
          if(t&&t.tagName==="circle"&&t.hasAttribute("data-v"))v=t;
          if(g){
            var r=D.t[+g.getAttribute("data-t")],modes=r[10].length?r[10].map(function(l){return D.modes[l[0]];}):[D.modes[r[7]]];
            var out=["Trip \u00b7 "+modes.join(" \u2192 "),span(r[1],r[2])+" ("+off(r[3])+")",dist(r[4])+" \u00b7 "+dur(r[5])+" (moving "+dur(r[6])+")"];
            if(r[8]>=0||r[9]>=0)out.push((r[8]>=0?D.places[r[8]]:"?")+" \u2192 "+(r[9]>=0?D.places[r[9]]:"?"));
            if(r[11])out.push("No track recorded: straight line from start to end");
            return [g,out];
          }
          if(v){
            var q=D.vs[+v.getAttribute("data-v")];
            return [v,["Visit \u00b7 "+(q[4]>=0?D.places[q[4]]:"unnamed place"),span(q[1],q[2])+" ("+off(q[3])+")","Stayed "+dur(q[2]-q[1])]];
          }
          return null;
        }
        function show(t,e){
          var x=lines(t);if(!x){if(!pinned)hide();return false;}
          if(hl!==x[0]){if(hl)hl.classList.remove("hl");hl=x[0];hl.classList.add("hl");}
          while(tip.firstChild)tip.removeChild(tip.firstChild);
          x[1].forEach(function(s){tip.appendChild(el("div",null,s));});
          tip.hidden=false;
          var r=pane.getBoundingClientRect(),px=e.clientX-r.left+14,py=e.clientY-r.top+14;
          if(px+tip.offsetWidth>r.width-4)px=Math.max(4,e.clientX-r.left-tip.offsetWidth-14);
          if(py+tip.offsetHeight>r.height-4)py=Math.max(4,e.clientY-r.top-tip.offsetHeight-14);
          tip.style.left=px+"px";tip.style.top=py+"px";return true;
        }
        var range=[-1e9,1e9];
        function inRange(d){return d>=range[0]&&d<=range[1];}
        function summary(){
          var s=document.getElementById("summary");if(!s)return;
          var distance=0,moving=0,nt=0,nv=0,bym={},pl={};
          D.t.forEach(function(r){if(!inRange(r[0]))return;nt++;distance+=r[4];moving+=r[6];
            var legs=r[10].length?r[10]:[[r[7],r[5],r[4]]];
            legs.forEach(function(l){var m=bym[l[0]]||(bym[l[0]]=[0,0]);m[0]+=l[1];m[1]+=l[2];});});
          D.vs.forEach(function(q){if(!inRange(q[0]))return;nv++;if(q[4]>=0){var p=pl[q[4]]||(pl[q[4]]=[0,0]);p[0]++;p[1]+=q[2]-q[1];}});
          while(s.firstChild)s.removeChild(s.firstChild);
          if(!nt&&!nv){s.appendChild(el("p","nothing","Nothing to show for this period: no trips or visits."));return;}
          var dl=el("dl","stats");
          [["Distance",dist(distance)],["Moving time",dur(moving)],["Trips",grp(nt)],["Visits",grp(nv)]].forEach(function(p){var d=el("div");d.appendChild(el("dt",null,p[0]));d.appendChild(el("dd",null,p[1]));dl.appendChild(d);});
          s.appendChild(dl);
          var ms=Object.keys(bym).map(Number).sort(function(a,b){return bym[b][0]-bym[a][0]||a-b;});
          if(ms.length){s.appendChild(el("h2",null,"Time by mode"));var tb=el("table","modes");
            ms.forEach(function(m){var tr=el("tr"),td=el("td");td.appendChild(el("span","sw m"+m));td.appendChild(document.createTextNode(D.modes[m]));tr.appendChild(td);tr.appendChild(el("td",null,dur(bym[m][0])));tr.appendChild(el("td",null,dist(bym[m][1])));tb.appendChild(tr);});
            s.appendChild(tb);}
          var ps=Object.keys(pl).map(Number).sort(function(a,b){return pl[b][0]-pl[a][0]||pl[b][1]-pl[a][1]||a-b;}).slice(0,D.top);
          if(ps.length){s.appendChild(el("h2",null,"Top places"));var ol=el("ol","places");
            ps.forEach(function(p){var li=el("li");li.appendChild(el("span","pn",D.places[p]));li.appendChild(el("span","pv",grp(pl[p][0])+(pl[p][0]===1?" visit \u00b7 ":" visits \u00b7 ")+dur(pl[p][1])));ol.appendChild(li);});
            s.appendChild(ol);}
        }
        var msel=document.getElementById("month"),dsel=document.getElementById("day");
        var dayset={};D.t.forEach(function(r){dayset[r[0]]=1;});D.vs.forEach(function(q){dayset[q[0]]=1;});D.days.forEach(function(d){dayset[d[0]]=1;});
        var alldays=Object.keys(dayset).map(Number).sort(function(a,b){return a-b;});
        function fillDays(){
          while(dsel.options.length>1)dsel.remove(1);
          var m=msel.value;dsel.disabled=!m;if(!m)return;
          alldays.forEach(function(d){var s=dayStr(d);if(s.slice(0,7)===m){var o=el("option",null,s);o.value=String(d);dsel.appendChild(o);}});
        }
        function visibleBox(){
          var b=null;function add(r){if(!b){b={x:r.x,y:r.y,x2:r.x+r.width,y2:r.y+r.height};return;}b.x=Math.min(b.x,r.x);b.y=Math.min(b.y,r.y);b.x2=Math.max(b.x2,r.x+r.width);b.y2=Math.max(b.y2,r.y+r.height);}
          trips.forEach(function(g){if(g.style.display!=="none")add(g.getBBox());});
          circles.forEach(function(c){if(c.style.display!=="none"){var q=D.vs[+c.getAttribute("data-v")],cx=+c.getAttribute("cx"),cy=+c.getAttribute("cy");add({x:cx,y:cy,width:0,height:0});}});
          return b?{x:b.x,y:b.y,width:b.x2-b.x,height:b.y2-b.y}:null;
        }
        function fitPeriod(){if(range[0]<-1e8&&range[1]>1e8){vb={x:0,y:0,w:W,h:H};apply();}else fitBox(visibleBox());}
        function choose(){
          var pt=document.getElementById("period");
          if(dsel.value){var d=+dsel.value;range=[d,d];pt.textContent=dayStr(d);}
          else if(msel.value){var ds=alldays.filter(function(d){return dayStr(d).slice(0,7)===msel.value;});range=[ds[0],ds[ds.length-1]];pt.textContent=msel.value;}
          else{range=[-1e9,1e9];pt.textContent=pt.getAttribute("data-all");}
          trips.forEach(function(g){g.style.display=inRange(D.t[+g.getAttribute("data-t")][0])?"":"none";});
          circles.forEach(function(c){c.style.display=inRange(D.vs[+c.getAttribute("data-v")][0])?"":"none";});
          var seen={};D.vs.forEach(function(q){if(inRange(q[0]))seen[q[4]]=1;});
          if(labels)Array.prototype.forEach.call(labels.querySelectorAll("text"),function(t){t.style.display=seen[t.getAttribute("data-p")]?"":"none";});
          Array.prototype.forEach.call(document.querySelectorAll("#chart rect.bar"),function(r){var d=+r.getAttribute("data-d");r.classList.toggle("sel",range[0]>-1e8&&d>=range[0]&&d<=range[1]);});
          hide();pinned=false;summary();fitPeriod();
        }
        if(msel&&dsel){
          var months=[];alldays.forEach(function(d){var m=dayStr(d).slice(0,7);if(months[months.length-1]!==m)months.push(m);});
          months.forEach(function(m){var o=el("option",null,m);o.value=m;msel.appendChild(o);});
          msel.addEventListener("change",function(){fillDays();choose();});
          dsel.addEventListener("change",choose);fillDays();
          var chart=document.getElementById("chart");
          if(chart)chart.addEventListener("click",function(e){var d=e.target.getAttribute&&e.target.getAttribute("data-d");if(d==null)return;d=+d;msel.value=dayStr(d).slice(0,7);fillDays();dsel.value=String(d);choose();});
        }
        window.addEventListener("resize",scalebar);
        apply();
        document.documentElement.setAttribute("data-ready",String(Math.round(performance.now())));
        })();
        """#
}
